import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { type Database, openDatabase } from './database.ts';
import { migrateOrThrow } from './migrate.ts';

let database: Database;
before(async () => {
  database = await openDatabase('sqlite::memory:');
  await migrateOrThrow(database);
  await sql`insert into programs (public_id, name, type, settings, created_at, updated_at)
    select 'p' || value, 'Program ' || value, 'affiliate', '{}', '2026-01-01', '2026-01-01'
    from json_each('[1,2,3,4,5]')`.execute(database.db);
});
after(() => database.close());

test('on SQLite, limit and offset are sent as integer casts of their parameters', () => {
  const compiled = database.db.selectFrom('programs').select('id').limit(2).offset(1).compile();
  assert.match(compiled.sql, /limit cast\(\? as integer\) offset cast\(\? as integer\)$/);
  assert.deepEqual(compiled.parameters, [2, 1]);
});

test('a cast limit and offset select the rows a bare one does', async () => {
  const page = (limit: number, offset: number) =>
    database.db
      .selectFrom('programs')
      .select('public_id')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
  assert.deepEqual(
    (await page(2, 1)).map((row) => row.public_id),
    ['p2', 'p3'],
  );
  assert.deepEqual(
    (await page(10, 3)).map((row) => row.public_id),
    ['p4', 'p5'],
  );
});
