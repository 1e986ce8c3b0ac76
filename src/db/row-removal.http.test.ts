import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import { affiliateProgramWithBuyer } from '../../test/factories.ts';
import { describeEachDatabase } from '../../test/harness.ts';
import type { DB } from './tables.ts';

/**
 * Rows removed outside Vouch's own deletes (by hand, or by a program's removal) still take what
 * hangs on them: a sale its rewards, a customer its sales, a program everything. SQLite does it
 * with foreign keys; PostgreSQL with the triggers of migration 0026, which replaced the keys a sale
 * paid a check for.
 */
describeEachDatabase('rows removed by hand', (server) => {
  const db = () => server().deps.database.db as Kysely<DB>;
  const count = async (table: 'transactions' | 'rewards' | 'customers', programId: number) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('program_id', '=', programId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function programWithSales(sales: number) {
    const { p } = await affiliateProgramWithBuyer(server());
    for (let i = 0; i < sales; i++) {
      const sale = await server().request('POST', '/v1/transactions', {
        token: p.token,
        body: { key: `s${i}`, amount: 10, action: 'sale', customer: { key: 'ck' } },
      });
      assert.equal(sale.status, 200, sale.text);
    }
    assert.equal(await count('transactions', p.id), sales);
    assert.equal(await count('rewards', p.id), sales, 'one commission per sale');
    return p;
  }

  test('a sale takes its rewards, a customer its sales and their rewards', async () => {
    const p = await programWithSales(3);
    await db().deleteFrom('transactions').where('program_id', '=', p.id).where('key', '=', 's0').execute();
    assert.equal(await count('transactions', p.id), 2);
    assert.equal(await count('rewards', p.id), 2);
    await db().deleteFrom('customers').where('program_id', '=', p.id).where('key', '=', 'ck').execute();
    assert.equal(await count('transactions', p.id), 0);
    assert.equal(await count('rewards', p.id), 0);
  });

  test("a program takes every customer, sale and reward of its own, and no other program's", async () => {
    const gone = await programWithSales(2);
    const kept = await programWithSales(1);
    await db().deleteFrom('programs').where('id', '=', gone.id).execute();
    for (const table of ['customers', 'transactions', 'rewards'] as const) {
      assert.equal(await count(table, gone.id), 0, table);
      assert.equal(await count(table, kept.id), 1, table);
    }
  });
});
