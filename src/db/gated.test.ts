import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { TEST_DATABASE_URL, testDialects } from '../../test/harness.ts';
import { type FailedQuery, openDatabase } from './database.ts';
import { executeGated, gatedWrite } from './gated.ts';

/** A schema of its own with a probe table and a guarded row per id, dropped by `close`. */
async function probed() {
  const schema = `gated_${process.pid}_${Date.now()}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('schema', schema);
  const failed: FailedQuery[] = [];
  const database = await openDatabase(url.toString(), {
    poolSize: 2,
    onFailedQuery: (failure) => failed.push(failure),
  });
  const db = database.db;
  await sql`create table probe (id bigint primary key, label text not null unique, flag boolean)`.execute(db);
  await sql`create table guard (id integer primary key, version integer not null)`.execute(db);
  await sql`insert into guard values (1, 0), (2, 0)`.execute(db);
  return {
    db,
    failed,
    labels: async () =>
      (await sql<{ label: string }>`select label from probe order by id`.execute(db)).rows.map(
        (r) => r.label,
      ),
    versions: async () =>
      (await sql<{ version: number }>`select version from guard order by id`.execute(db)).rows.map((r) =>
        Number(r.version),
      ),
    close: async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
      await database.close();
    },
  };
}

/** Rows of the probe as Kysely writes a multi-row insert. */
const rows = (...values: [number, string][]) => ({
  sql: `insert into "probe" ("id", "label", "flag") values ${values
    .map((_, i) => `($${3 * i + 1}, $${3 * i + 2}, $${3 * i + 3})`)
    .join(', ')}`,
  parameters: values.flatMap(([id, label]) => [id, label, id % 2 === 0]),
});

/** Moves row `id`'s version on only while it is still `seen`. */
const guard = (id: number, seen: number) => ({
  sql: 'update "guard" set "version" = version + 1 where "id" = $1 and "version" = $2 returning "id"',
  parameters: [id, seen],
});

const onPostgres = { skip: !testDialects().includes('postgres') };

test('gatedWrite keeps each form and adds the condition where it belongs', () => {
  assert.equal(
    gatedWrite('insert into "t" ("a", "b") values ($1, $2)', 'C', ' returning 1'),
    'insert into "t" ("a", "b") select $1, $2 where C returning 1',
  );
  assert.equal(
    gatedWrite('insert into "t" ("a") values ($1), ($2) on conflict ("a") do nothing', 'C', ' returning 1'),
    'insert into "t" ("a") select "v"."a" from (values (false, (null::"t")."a"), (true, $1), (true, $2))' +
      ' as "v"("vouch_keep", "a") where "v"."vouch_keep" and C on conflict ("a") do nothing returning 1',
  );
  assert.equal(
    gatedWrite(
      'update "t" set "a" = $1 where "b" = $2 or "c" = \'x where\' returning "id"',
      'C',
      ' returning 1',
    ),
    'update "t" set "a" = $1 where ("b" = $2 or "c" = \'x where\') and C returning "id"',
  );
  assert.equal(
    gatedWrite('insert into "e" ("a") select "v"."column1" from (values ($1)) as "v"', 'C', ' returning 1'),
    'insert into "e" ("a") select * from ( select "v"."column1" from (values ($1)) as "v") as gated where C returning 1',
  );
});

test(
  'executeGated writes everything while its guards hold, and nothing, failing nothing, when not',
  onPostgres,
  async () => {
    const probe = await probed();
    try {
      const write = (seen: number, keyed: ReturnType<typeof rows>, ...others: ReturnType<typeof rows>[]) =>
        executeGated(probe.db, {
          guards: [guard(1, seen), guard(2, seen)],
          keyed: { statement: keyed, rows: keyed.parameters.length / 3 },
          statements: others,
        });
      assert.equal(await write(0, rows([1, 'one']), rows([2, 'two'], [3, 'three'])), 'written');
      assert.deepEqual(await probe.labels(), ['one', 'two', 'three']);
      assert.deepEqual(await probe.versions(), [1, 1]);
      // Read before that write: changed, and nothing written.
      assert.equal(await write(0, rows([4, 'four']), rows([5, 'five'])), 'changed');
      // A taken key (one row): nothing else written either.
      assert.equal(await write(1, rows([6, 'one']), rows([7, 'seven'])), 'taken');
      assert.deepEqual(await probe.labels(), ['one', 'two', 'three']);
      // Several keyed rows, typed from the table (a bigint id, a boolean).
      assert.equal(await write(2, rows([8, 'eight'], [9, 'nine']), rows([10, 'ten'])), 'written');
      assert.deepEqual(await probe.labels(), ['one', 'two', 'three', 'eight', 'nine', 'ten']);
      const absent = { sql: 'select "id" from "probe" where "label" = $1', parameters: ['nine'] };
      const blocked = await executeGated(probe.db, {
        guards: [],
        absent,
        keyed: { statement: rows([11, 'eleven']), rows: 1 },
        statements: [],
      });
      assert.equal(blocked, 'changed');
      assert.deepEqual(probe.failed, []);
    } finally {
      await probe.close();
    }
  },
);
