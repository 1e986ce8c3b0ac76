import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { TEST_DATABASE_URL, testDialects } from '../../test/harness.ts';
import { COUNTER_SLOTS } from './counter-slots.ts';
import { openDatabase } from './database.ts';

const skip = !testDialects().includes('postgres');

test('PostgreSQL connections: the statement timeout cancels long statements; each has its own counter slot', {
  skip,
}, async () => {
  const database = await openDatabase(TEST_DATABASE_URL, { poolSize: 4, statementTimeoutMs: 100 });
  try {
    await assert.rejects(sql`select pg_sleep(1)`.execute(database.db), (error: { code?: string }) => {
      assert.equal(error.code, '57014'); // query_canceled
      return true;
    });
    // Four statements at once take the pool's four connections.
    const slots = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { rows } = await sql<{ slot: string }>`
          select current_setting('vouch.counter_slot') as slot, pg_sleep(0.05)`.execute(database.db);
        return Number(rows[0]!.slot);
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
    assert.equal(rows[0]!.timeout, '0');
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
      assert.equal(rows[0]!.n, i + 1);
    }
    const { rows } = await sql<{ prepared: number }>`
      select count(*)::int as prepared from pg_prepared_statements`.execute(database.db);
    assert.equal(rows[0]!.prepared, 2_000);
  } finally {
    await database.close();
  }
});
