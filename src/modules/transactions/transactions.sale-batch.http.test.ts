import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { entityFigure } from '../../../test/figures.ts';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { inParallel } from '../../../test/in-parallel.ts';
import { itemAt } from '../../../test/items.ts';

/**
 * Sales of a program without an active webhook arriving together are written together on
 * PostgreSQL (transactions.sale-batch.ts): they share statements, and each still answers as it
 * would alone (a replay, a taken key, a buyer's first sale), with every figure equal to its rows.
 */

const BUYERS = 8;
const SALES = 160;

async function programWithBuyers(server: TestServer): Promise<TestProgram> {
  const p = await server.newProgram('affiliate');
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'batch@example.com', key: 'pb' },
  });
  assert.equal(partner.status, 201, partner.text);
  for (let b = 0; b < BUYERS; b++) {
    const buyer = await server.request('POST', '/v1/customers', {
      token: p.token,
      body: { key: `b${b}`, partner: { key: 'pb' } },
    });
    assert.equal(buyer.status, 201, buyer.text);
  }
  return p;
}

const saleBody = (i: number) => ({
  key: `sale-${i}`,
  amount: `${(i % 9) + 1}.${String(i % 100).padStart(2, '0')}`,
  action: 'sale',
  customer: { key: `b${i % BUYERS}` },
});

/** A figure's value summed over its slots. */
const figure = async (server: TestServer, programId: number, kind: string, id: number, metric: string) =>
  (await entityFigure(server, programId, kind, id, metric))[0];

describeEachDatabase('sales arriving together', (server, dialect) => {
  test(`${SALES} sales of ${BUYERS} buyers at once, each tenth sent twice: stored once each, figures equal their rows`, async () => {
    const p = await programWithBuyers(server());
    const replies = await inParallel(SALES, 40, (i) =>
      server().request('POST', '/v1/transactions', {
        token: p.token,
        // Every tenth request repeats the one before it: a replay of a sale maybe still in flight.
        body: saleBody(i % 10 === 9 ? i - 1 : i),
      }),
    );
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    for (let i = 9; i < SALES; i += 10)
      // The whole answer: a transaction has no `id` on the wire to compare alone.
      assert.deepEqual(replies[i]?.body, replies[i - 1]?.body, `sale-${i - 1} answered twice alike`);

    const db = server().deps.database.db;
    const stored = await db
      .selectFrom('transactions')
      .select([
        sql<number>`count(*)`.as('count'),
        sql<string>`cast(sum(amount) as text)`.as('revenue'),
        sql<number>`count(distinct customer_id)`.as('buyers'),
      ])
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.count), SALES - SALES / 10);
    assert.equal(Number(stored.buyers), BUYERS);
    const partner = await db
      .selectFrom('partners')
      .select('id')
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(
      await figure(server(), p.id, 'partner', Number(partner.id), 'sales_count'),
      BigInt(stored.count),
    );
    assert.equal(
      await figure(server(), p.id, 'partner', Number(partner.id), 'revenue:usd'),
      BigInt(stored.revenue),
    );
    // Every buyer's first sale raced with its others: each became a paying account once.
    assert.equal(
      await figure(server(), p.id, 'partner', Number(partner.id), 'paid_accounts'),
      BigInt(BUYERS),
    );
    const perBuyer = await db
      .selectFrom('transactions')
      .select(['customer_id', sql<number>`count(*)`.as('count')])
      .where('program_id', '=', p.id)
      .groupBy('customer_id')
      .execute();
    for (const row of perBuyer)
      assert.equal(
        await figure(server(), p.id, 'customer', Number(row.customer_id), 'sales_count'),
        BigInt(row.count),
      );
    const commissions = await db
      .selectFrom('rewards')
      .select(sql<number>`count(*)`.as('count'))
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(commissions.count), Number(stored.count));

    if (dialect === 'postgres') {
      // Sales written by one statement share its transaction id.
      const statements = await sql<{ count: number }>`
        select count(distinct xmin::text) as count from transactions where program_id = ${p.id}`.execute(db);
      const shared = Number(itemAt(statements.rows).count);
      assert.ok(shared < Number(stored.count), `${stored.count} sales in ${shared} statements`);
    }
  });

  test('a taken key among sales arriving together is refused alone', async () => {
    const p = await programWithBuyers(server());
    const first = await server().request('POST', '/v1/transactions', { token: p.token, body: saleBody(0) });
    assert.equal(first.status, 200, first.text);
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        server().request('POST', '/v1/transactions', {
          token: p.token,
          // Request 12 reuses the first sale's key with another amount.
          body: i === 12 ? { ...saleBody(0), amount: '77.00' } : saleBody(i + 1),
        }),
      ),
    );
    for (const [i, reply] of replies.entries()) {
      if (i === 12) {
        assert.equal(reply.status, 422, reply.text);
        assert.ok(reply.error.errors?.key, reply.text);
      } else assert.equal(reply.status, 200, reply.text);
    }
    const stored = await server()
      .deps.database.db.selectFrom('transactions')
      .select(sql<number>`count(*)`.as('count'))
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.count), 24);
  });
});
