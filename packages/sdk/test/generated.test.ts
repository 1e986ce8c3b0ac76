import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { generateSdkFiles } from '../../../scripts/sdk-generation.ts';

test('the SDK types and MCP tool inputs are generated from openapi.json (run `npm run sdk:generate`)', async () => {
  for (const [path, text] of Object.entries(await generateSdkFiles())) {
    const committed = readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
    assert.ok(committed === text, `${path} is stale: run \`npm run sdk:generate\``);
  }
});
