import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { TEST_DATABASE_URL, testDialects } from '../../test/harness.ts';
import { openDatabase } from './database.ts';
import { migrateOrThrow } from './migrate.ts';
import { executeTogether } from './together.ts';

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
