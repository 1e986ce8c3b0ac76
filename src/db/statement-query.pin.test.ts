import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import pg from 'pg';

// db/statement-query.ts reaches into pg's Query and Result (ADR 0015, ADR 0051). pg is pinned to
// one exact version, and these checks name what the reuse relies on, so a pg upgrade that moves
// it fails here, by name, before any query runs.

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
};
const installed = JSON.parse(
  readFileSync(new URL('../../node_modules/pg/package.json', import.meta.url), 'utf8'),
) as { version: string };

test('pg is pinned to one exact version, the one installed', () => {
  assert.match(manifest.dependencies.pg ?? '', /^\d+\.\d+\.\d+$/, 'package.json pins pg exactly');
  assert.equal(installed.version, manifest.dependencies.pg);
});

test("pg's Query has the internals the statement set-up reuse reads and writes", () => {
  const prototype = pg.Query.prototype as unknown as Record<string, unknown>;
  assert.equal(typeof prototype.handleRowDescription, 'function');
  assert.equal(typeof prototype._checkForMultirow, 'function');
  const query = new pg.Query('select 1', [], () => {}) as unknown as Record<string, unknown>;
  assert.ok(query._result, 'a Query builds its Result up front');
  assert.equal(query._results, query._result);
  assert.ok('_rowMode' in query);
});

test("pg's Result sets up parsers and an empty row from a RowDescription, where the reuse puts its own", () => {
  const Result = (pg as unknown as { Result: new (rowMode?: string) => Record<string, unknown> }).Result;
  const result = new Result();
  assert.ok('_parsers' in result && '_prebuiltEmptyResultObject' in result);
  (result.addFields as (fields: unknown[]) => void)([{ name: 'n', dataTypeID: 23, format: 'text' }]);
  assert.equal((result._parsers as unknown[]).length, 1);
  assert.deepEqual(result._prebuiltEmptyResultObject, { n: null });
  assert.deepEqual(
    (result.parseRow as (values: unknown[]) => unknown)(['7']),
    { n: 7 },
    'parseRow reads through _parsers and copies the empty row',
  );
});
