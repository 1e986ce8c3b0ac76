import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { TEST_DATABASE_URL, testDialects } from '../../test/harness.ts';
import { itemAt } from '../../test/items.ts';
import { COUNTER_SLOTS } from './counter-slots.ts';
import { openDatabase } from './database.ts';
import { type FieldSetup, runStatement } from './statement-query.ts';

const skip = !testDialects().includes('postgres');

test('PostgreSQL connections: the statement timeout cancels long statements; each has its own counter slot', {
  skip,
}, async () => {
  const database = await openDatabase(TEST_DATABASE_URL, { poolSize: 4, statementTimeoutMs: 1_000 });
  try {
    await assert.rejects(sql`select pg_sleep(5)`.execute(database.db), (error: { code?: string }) => {
      assert.equal(error.code, '57014'); // query_canceled
      return true;
    });
    // Four statements at once take the pool's four connections.
    const slots = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { rows } = await sql<{ slot: string }>`
          select current_setting('vouch.counter_slot') as slot, pg_sleep(0.05)`.execute(database.db);
        return Number(itemAt(rows).slot);
      }),
    );
    assert.equal(new Set(slots).size, 4, `slots ${slots}`);
    for (const slot of slots) assert.ok(slot >= 0 && slot < COUNTER_SLOTS);
  } finally {
    await database.close();
  }
});

test('PostgreSQL without a statement timeout lets a statement run', { skip }, async () => {
  const database = await openDatabase(TEST_DATABASE_URL, { poolSize: 1 });
  try {
    const { rows } = await sql<{
      timeout: string;
    }>`select current_setting('statement_timeout') as timeout`.execute(database.db);
    assert.equal(itemAt(rows).timeout, '0');
  } finally {
    await database.close();
  }
});

test('PostgreSQL names at most 2,000 statement texts a connection keeps prepared; the rest still run', {
  skip,
}, async () => {
  const database = await openDatabase(TEST_DATABASE_URL, { poolSize: 1 });
  try {
    for (let i = 0; i < 2_050; i++) {
      const { rows } = await sql<{ n: number }>`select ${sql.lit(i)} + ${1}::int as n`.execute(database.db);
      assert.equal(itemAt(rows).n, i + 1);
    }
    const { rows } = await sql<{ prepared: number }>`
      select count(*)::int as prepared from pg_prepared_statements`.execute(database.db);
    assert.equal(itemAt(rows).prepared, 2_000);
  } finally {
    await database.close();
  }
});

test('PostgreSQL statements answer their own rows while their result set-up is reused', {
  skip,
}, async () => {
  const database = await openDatabase(TEST_DATABASE_URL, { poolSize: 3 });
  try {
    // Many runs at once over three connections: each row has its own values, named as selected.
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 2
          ? sql<{ n: number; label: string; nothing: null }>`
              select ${i}::int as n, ${`l${i}`}::text as label, null as nothing`.execute(database.db)
          : sql<{ m: number }>`select ${i}::int * 2 as m`.execute(database.db),
      ),
    );
    for (const [i, { rows }] of results.entries()) {
      assert.deepEqual(rows, i % 2 ? [{ n: i, label: `l${i}`, nothing: null }] : [{ m: i * 2 }]);
    }
  } finally {
    await database.close();
  }
});

test('A result set-up is reused only for the same columns', { skip }, async () => {
  const clients = [new pg.Client(TEST_DATABASE_URL), new pg.Client(TEST_DATABASE_URL)] as const;
  await Promise.all(clients.map((client) => client.connect()));
  try {
    const setups = new Map<string, FieldSetup>();
    const run = (client: pg.Client, text: string, rowMode?: 'array') =>
      runStatement((query) => client.query(query), text, [], {
        name: 'same_name',
        setups,
        ...(rowMode ? { rowMode } : {}),
      });
    assert.deepEqual((await run(clients[0], 'select 1::int as a')).rows, [{ a: 1 }]);
    assert.deepEqual((await run(clients[0], 'select 1::int as a')).rows, [{ a: 1 }]);
    // The same name on another connection describing other columns is set up anew.
    assert.deepEqual((await run(clients[1], `select 'b'::text as b, 2::int as c`)).rows, [{ b: 'b', c: 2 }]);
    assert.deepEqual((await run(clients[1], `select 'b'::text as b, 2::int as c`, 'array')).rows, [['b', 2]]);
    assert.deepEqual((await run(clients[0], 'select 1::int as a')).rows, [{ a: 1 }]);
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
});
