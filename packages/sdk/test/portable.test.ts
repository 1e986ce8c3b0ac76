import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const sourceDir = new URL('../src/', import.meta.url).pathname;
const sources = (readdirSync(sourceDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));

test('the SDK imports only its own files and openapi-fetch: it runs in browsers and edge runtimes', () => {
  assert.ok(sources.length > 5);
  for (const file of sources) {
    const text = readFileSync(join(sourceDir, file), 'utf8');
    for (const [, specifier] of text.matchAll(/from '([^']+)'/g)) {
      assert.ok(specifier?.startsWith('.') || specifier === 'openapi-fetch', `${file} imports ${specifier}`);
    }
    assert.doesNotMatch(text, /\bprocess\.|\bBuffer\b|require\(/, file);
  }
});
