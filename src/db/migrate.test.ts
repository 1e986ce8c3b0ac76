import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { TEST_DATABASE_URL, testDialects } from '../../test/harness.ts';
import { itemAt } from '../../test/items.ts';
import { randomAlphanumeric } from '../core/ids.ts';
import { openDatabase } from './database.ts';
import { migrateOrThrow } from './migrate.ts';
import { migrations } from './migrations/index.ts';

test('instances starting at once against one PostgreSQL migrate exactly once', {
  skip: !testDialects().includes('postgres'),
}, async () => {
  const schema = `t_migrate_${randomAlphanumeric(8).toLowerCase()}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('schema', schema);
  const instances = await Promise.all(
    Array.from({ length: 4 }, () => openDatabase(url.toString(), { poolSize: 2 })),
  );
  try {
    const applied = await Promise.all(instances.map((database) => migrateOrThrow(database)));
    assert.deepEqual(
      applied.flat().sort(),
      Object.keys(migrations).sort(),
      'each migration applied by exactly one instance',
    );
    const again = await migrateOrThrow(itemAt(instances));
    assert.deepEqual(again, []);
  } finally {
    await Promise.all(instances.map((database) => database.close()));
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
});

test('SQLite opens in WAL with synchronous NORMAL, foreign keys on, and migrates idempotently', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-db-'));
  const database = await openDatabase(`sqlite:${join(dir, 'nested', 'vouch.db')}`);
  try {
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`pragma ${name}`).execute(database.db)).rows[0] as object)[0];
    assert.equal(await pragma('journal_mode'), 'wal');
    assert.equal(await pragma('synchronous'), 1);
    assert.equal(await pragma('foreign_keys'), 1);
    assert.equal(await pragma('busy_timeout'), 5000);
    assert.deepEqual(await migrateOrThrow(database), Object.keys(migrations));
    assert.deepEqual(await migrateOrThrow(database), []);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
