import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { TEST_DATABASE_URL, testDialects } from '../../test/harness.ts';
import { itemAt } from '../../test/items.ts';
import { openDatabase } from './database.ts';
import { migrateOrThrow } from './migrate.ts';
import { executeGuarded, executeTogether } from './together.ts';

/** A migrated database of `dialect` (a schema of its own on PostgreSQL), dropped by `close`. */
async function migrated(dialect: 'sqlite' | 'postgres') {
  const schema = `together_${process.pid}_${Date.now()}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('schema', schema);
  const database = await openDatabase(dialect === 'sqlite' ? 'sqlite::memory:' : url.toString(), {
    poolSize: 2,
  });
  await migrateOrThrow(database);
  await sql`create table together_probe (id integer primary key, label text not null)`.execute(database.db);
  return {
    database,
    close: async () => {
      if (dialect === 'postgres') await sql`drop schema ${sql.id(schema)} cascade`.execute(database.db);
      await database.close();
    },
  };
}

const insert = (id: number, label: string) => ({
  sql: 'insert into together_probe (id, label) values ($1, $2)',
  parameters: [id, label],
});
const labels = async (db: Awaited<ReturnType<typeof migrated>>['database']['db']) =>
  (await sql<{ label: string }>`select label from together_probe order by id`.execute(db)).rows.map(
    (row) => row.label,
  );

/** The one row a guard of these tests updates: id 1 at `version`. */
async function guardedRow(db: Awaited<ReturnType<typeof migrated>>['database']['db'], version: number) {
  await sql`create table together_guard (id integer primary key, version integer not null)`.execute(db);
  await sql`insert into together_guard values (1, ${version}), (2, ${version})`.execute(db);
}

/** A guard that moves row `id`'s version on only while it is still `seen`. */
const movingGuard = (id: number, seen: number) => ({
  sql: 'update together_guard set version = version + 1 where id = $1 and version = $2 returning id',
  parameters: [id, seen],
});

for (const dialect of testDialects()) {
  test(`executeTogether writes every statement, each with its own values [${dialect}]`, async () => {
    const { database, close } = await migrated(dialect);
    try {
      const statements = [insert(1, 'one'), insert(2, 'two'), insert(3, 'three')];
      if (dialect === 'sqlite')
        for (const s of statements) s.sql = s.sql.replace('$1', '?').replace('$2', '?');
      await executeTogether(database.db, statements);
      assert.deepEqual(await labels(database.db), ['one', 'two', 'three']);
    } finally {
      await close();
    }
  });
}

test('executeGuarded writes everything when its guard changes a row, nothing when not', {
  skip: !testDialects().includes('postgres'),
}, async () => {
  const { database, close } = await migrated('postgres');
  try {
    await guardedRow(database.db, 5);
    await executeGuarded(database.db, [movingGuard(1, 5)], [insert(1, 'one'), insert(2, 'two')]);
    assert.deepEqual(await labels(database.db), ['one', 'two']);
    // The version moved on: a write that read 5 is refused whole, as a serialization failure.
    await assert.rejects(
      executeGuarded(database.db, [movingGuard(1, 5)], [insert(3, 'three')]),
      (error: { code?: string }) => {
        assert.equal(error.code, '40001');
        return true;
      },
    );
    assert.deepEqual(await labels(database.db), ['one', 'two']);
    const { rows } = await sql<{ version: number }>`select version from together_guard where id = 1`.execute(
      database.db,
    );
    assert.equal(Number(itemAt(rows).version), 6);
  } finally {
    await close();
  }
});

test('executeGuarded with `absent` writes only while that statement finds nothing', {
  skip: !testDialects().includes('postgres'),
}, async () => {
  const { database, close } = await migrated('postgres');
  try {
    await guardedRow(database.db, 0);
    const guard = {
      sql: 'update together_guard set version = version where id = $1 returning id',
      parameters: [1],
    };
    const absent = { sql: 'select id from together_probe where label = $1', parameters: ['stop'] };
    await executeGuarded(database.db, [guard], [insert(1, 'one')], absent);
    assert.deepEqual(await labels(database.db), ['one']);
    await sql`insert into together_probe values (9, 'stop')`.execute(database.db);
    // What the write was decided without is there now: refused whole, as a serialization failure.
    await assert.rejects(
      executeGuarded(database.db, [guard], [insert(2, 'two')], absent),
      (error: { code?: string }) => {
        assert.equal(error.code, '40001');
        return true;
      },
    );
    assert.deepEqual(await labels(database.db), ['one', 'stop']);
  } finally {
    await close();
  }
});

test('executeGuarded with several guards writes only when every guard changes its row', {
  skip: !testDialects().includes('postgres'),
}, async () => {
  const { database, close } = await migrated('postgres');
  try {
    await guardedRow(database.db, 3);
    await executeGuarded(database.db, [movingGuard(1, 3), movingGuard(2, 3)], [insert(1, 'one')]);
    assert.deepEqual(await labels(database.db), ['one']);
    // Row 1 is at 4 now, row 2 too: the second guard reads 3, so nothing is written, not even
    // the first guard's move.
    await assert.rejects(
      executeGuarded(database.db, [movingGuard(1, 4), movingGuard(2, 3)], [insert(2, 'two')]),
      (error: { code?: string }) => {
        assert.equal(error.code, '40001');
        return true;
      },
    );
    assert.deepEqual(await labels(database.db), ['one']);
    const { rows } = await sql<{ version: number }>`select version from together_guard order by id`.execute(
      database.db,
    );
    assert.deepEqual(
      rows.map((row) => Number(row.version)),
      [4, 4],
    );
  } finally {
    await close();
  }
});
