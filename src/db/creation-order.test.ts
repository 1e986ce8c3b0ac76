import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { createdAfter } from './creation-order.ts';
import { type Database, openDatabase } from './database.ts';

type Walk = { walk: { program_id: number; created_at: string; id: number } };

let database: Database;
before(async () => {
  database = await openDatabase('sqlite::memory:');
  await sql`create table walk (id integer primary key, program_id integer not null, created_at text not null)`.execute(
    database.db,
  );
  await sql`create index walk_created on walk (program_id, created_at, id)`.execute(database.db);
  // Program 1: three rows in one microsecond, then one later; program 2 interleaved.
  await sql`insert into walk (id, program_id, created_at) values
    (1, 1, '2026-01-01T00:00:00.000001Z'), (2, 2, '2026-01-01T00:00:00.000001Z'),
    (3, 1, '2026-01-01T00:00:00.000001Z'), (4, 1, '2026-01-01T00:00:00.000001Z'),
    (5, 1, '2026-01-01T00:00:00.000002Z')`.execute(database.db);
});
after(() => database.close());

const walk = (cursor: { createdAt: string; id: number }) =>
  database.db
    .withTables<Walk>()
    .selectFrom('walk')
    .select('id')
    .where('program_id', '=', 1)
    .where(createdAfter(cursor))
    .where('created_at', '<=', '2026-01-02')
    .orderBy('created_at')
    .orderBy('id');

test('rows after a cursor continue within one microsecond and skip other programs', async () => {
  const ids = async (createdAt: string, id: number) =>
    (await walk({ createdAt, id }).execute()).map((row) => row.id);
  assert.deepEqual(await ids('2026-01-01T00:00:00.000001Z', 1), [3, 4, 5]);
  assert.deepEqual(await ids('2026-01-01T00:00:00.000001Z', 4), [5]);
  assert.deepEqual(await ids('1970-01-01T00:00:00.000000Z', 0), [1, 3, 4, 5]);
  assert.deepEqual(await ids('2026-01-01T00:00:00.000002Z', 5), []);
});

test('on SQLite the cursor is a range of the index, not a walk from the program’s first row', async () => {
  const compiled = walk({ createdAt: '2026-01-01T00:00:00.000001Z', id: 1 }).compile();
  const plan = await database.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
  );
  assert.match(
    plan.rows.map((row) => row.detail).join(' '),
    /walk_created \(program_id=\? AND created_at>\?/,
  );
});
