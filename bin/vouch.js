#!/usr/bin/env node
// The `vouch` CLI: the compiled build when present (npm run build), otherwise the TypeScript
// sources through tsx, so `npx vouch` works on a fresh clone.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (existsSync(compiled)) {
  await import(compiled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
