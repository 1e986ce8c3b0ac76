import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { affiliateProgramWithBuyer } from '../../../test/factories.ts';
import { entityFigure } from '../../../test/figures.ts';
import { describeEachDatabase, startServer, type TestServer } from '../../../test/harness.ts';
import { inParallel } from '../../../test/in-parallel.ts';
import { itemAt } from '../../../test/items.ts';
import { joinCounterParts } from '../../db/counter-parts.ts';

/**
 * Exact figures under load (issue 15): sales of one partner and one referrer, archives and
 * balance credits all at once, through two Vouch instances on PostgreSQL (one on SQLite), and
 * then every hot figure equals a recount of its rows. On PostgreSQL the figures are spread over
 * slots (db/counter-slots.ts): the test checks they really were, so the sums are what it proves.
 */

const SALES = 120;
const PARALLEL = 30;

async function programFigure(server: TestServer, programId: number, metric: string, total: boolean) {
  const rows = await server.deps.database.db
    .selectFrom('program_counters')
    .select(['value', 'value_hi'])
    .where('program_id', '=', programId)
    .where('metric', '=', metric)
    .where('day', total ? '=' : '<>', 'total')
    .execute();
  return rows.reduce((sum, row) => sum + joinCounterParts(row.value, row.value_hi), 0n);
}

/** A partner's internal id, by its public id within the program. */
async function partnerIdOf(server: TestServer, programId: number, publicId: string): Promise<number> {
  const row = await server.deps.database.db
    .selectFrom('partners')
    .select('id')
    .where('program_id', '=', programId)
    .where('public_id', '=', publicId)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describeEachDatabase('figures stay exact under concurrent sales, archives and credits', (server, dialect) => {
  let second: TestServer;
  before(async () => {
    const first = server() as TestServer & { databaseUrl?: string };
    second =
      dialect === 'postgres'
        ? await startServer({ dialect, database: { url: (first as { databaseUrl: string }).databaseUrl } })
        : first;
  });
  after(async () => {
    if (second !== server()) await second.close();
  });
  const instance = (i: number) => (i % 2 ? second : server());

  test(`${SALES} sales of one partner over two instances, a tenth archived meanwhile: figures equal their rows`, async () => {
    const { p, partnerId } = await affiliateProgramWithBuyer(server());
    const replies = await inParallel(SALES, PARALLEL, async (i) => {
      const sale = await instance(i).request('POST', '/v1/transactions', {
        token: p.token,
        body: { key: `s${i}`, amount: `${10 + (i % 7)}.25`, action: 'sale', customer: { key: 'ck' } },
      });
      if (sale.status === 200 && i % 10 === 0)
        return instance(i + 1).request('POST', `/v1/transactions/s${i}/archive`, { token: p.token });
      return sale;
    });
    for (const reply of replies) assert.ok(reply.status < 300, reply.text);

    const db = server().deps.database.db;
    const sales = await db
      .selectFrom('transactions')
      .select([
        sql<number>`count(*)`.as('count'),
        sql<string>`cast(coalesce(sum(amount), 0) as text)`.as('revenue'),
      ])
      .where('program_id', '=', p.id)
      .where('archived_at', 'is', null)
      .executeTakeFirstOrThrow();
    assert.equal(Number(sales.count), SALES - SALES / 10);
    const revenue = BigInt(sales.revenue);
    const partner = await partnerIdOf(server(), p.id, partnerId);
    const commissions = await db
      .selectFrom('rewards')
      .innerJoin('transactions', 'transactions.id', 'rewards.transaction_id')
      .select(sql<string>`cast(coalesce(sum(rewards.amount), 0) as text)`.as('sum'))
      .where('rewards.program_id', '=', p.id)
      .where('transactions.archived_at', 'is', null)
      .executeTakeFirstOrThrow();

    const [salesCount, slots] = await entityFigure(server(), p.id, 'partner', partner, 'sales_count');
    assert.equal(salesCount, BigInt(sales.count));
    assert.equal((await entityFigure(server(), p.id, 'partner', partner, 'revenue:usd'))[0], revenue);
    const buckets = await db
      .selectFrom('entity_counters')
      .select(['value', 'value_hi'])
      .where('program_id', '=', p.id)
      .where('owner_kind', '=', 'partner')
      .where('owner_id', '=', partner)
      .where('metric', 'like', 'commission_%')
      .execute();
    assert.equal(
      buckets.reduce((sum, row) => sum + joinCounterParts(row.value, row.value_hi), 0n),
      BigInt(commissions.sum),
    );
    assert.equal(await programFigure(server(), p.id, 'sales', true), BigInt(sales.count));
    assert.equal(await programFigure(server(), p.id, 'sales', false), BigInt(sales.count));
    assert.equal(await programFigure(server(), p.id, 'revenue:usd', true), revenue);
    if (dialect === 'postgres') assert.ok(slots > 1, `the partner's sales count in ${slots} slot(s)`);
    // The buyer's own count decides each sale (first sale or not): its sales raced on one row
    // (PostgreSQL: written without a transaction, guarded by its sale version, migration 0023).
    const buyer = await db
      .selectFrom('customers')
      .select('id')
      .where('program_id', '=', p.id)
      .where('key', '=', 'ck')
      .executeTakeFirstOrThrow();
    const [buyerSales] = await entityFigure(server(), p.id, 'customer', Number(buyer.id), 'sales_count');
    assert.equal(buyerSales, BigInt(sales.count));
    // Many first sales raced: the buyer became a paying account once.
    assert.equal((await entityFigure(server(), p.id, 'partner', partner, 'paid_accounts'))[0], 1n);

    // What the API shows is the same sum.
    const shown = await second.request('GET', `/v1/partners/${partnerId}`, { token: p.token });
    assert.equal(shown.body.data.referrals.sales_count, Number(sales.count));
  });

  test('a buyer deleted while its sales race: no sale or commission outlives it, figures equal their rows', async () => {
    const { p, partnerId } = await affiliateProgramWithBuyer(server());
    const replies = await inParallel(SALES, PARALLEL, (i) =>
      i === SALES / 2
        ? instance(i).request('DELETE', '/v1/customers/ck', { token: p.token })
        : instance(i).request('POST', '/v1/transactions', {
            token: p.token,
            body: { key: `s${i}`, amount: 10, action: 'sale', customer: { key: 'ck' } },
          }),
    );
    // A sale after the delete names a buyer that is gone: 422 on `customer`.
    for (const reply of replies) assert.ok(reply.status < 300 || reply.status === 422, reply.text);
    assert.equal(itemAt(replies, SALES / 2).status, 200, 'the delete');
    assert.ok(
      replies.some((reply) => reply.status === 422),
      'some sales came after the delete',
    );

    const db = server().deps.database.db;
    const orphans = await db
      .selectFrom('transactions')
      .leftJoin('customers', 'customers.id', 'transactions.customer_id')
      .select(sql<number>`count(*)`.as('count'))
      .where('transactions.program_id', '=', p.id)
      .where('customers.id', 'is', null)
      .executeTakeFirstOrThrow();
    assert.equal(Number(orphans.count), 0, 'sales of a deleted buyer');
    const orphanRewards = await db
      .selectFrom('rewards')
      .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
      .select(sql<number>`count(*)`.as('count'))
      .where('rewards.program_id', '=', p.id)
      .where('rewards.transaction_id', 'is not', null)
      .where('transactions.id', 'is', null)
      .executeTakeFirstOrThrow();
    // A deleted sale's commissions are kept without it (transaction_id null), never pointing at it.
    assert.equal(Number(orphanRewards.count), 0, 'commissions pointing at a deleted sale');
    const partner = await partnerIdOf(server(), p.id, partnerId);
    const kept = await db
      .selectFrom('transactions')
      .select(sql<number>`count(*)`.as('count'))
      .where('program_id', '=', p.id)
      .where('partner_id', '=', partner)
      .executeTakeFirstOrThrow();
    assert.equal(
      (await entityFigure(server(), p.id, 'partner', partner, 'sales_count'))[0],
      BigInt(kept.count),
    );
    const all = await db
      .selectFrom('transactions')
      .select(sql<number>`count(*)`.as('count'))
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(await programFigure(server(), p.id, 'sales', true), BigInt(all.count));
  });

  test('a referrer earns on every purchase while its balance is credited at once: never overdrawn, exact', async () => {
    const p = await server().newProgram('referral');
    const every = {
      type: 'fixed',
      value: 10,
      is_currency: true,
      amount_units: 'USD',
      trigger: 'every_purchase',
      limit: null,
    };
    const put = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: { referrer_reward: every, referred_reward: every } },
    });
    assert.equal(put.status, 200, put.text);
    for (const body of [
      { id: 'f0', email: 'f0@example.com' },
      { id: 'r0', email: 'r0@example.com', referring_customer: { id: 'f0' } },
    ]) {
      const created = await server().request('POST', '/v1/customers', { token: p.token, body });
      assert.equal(created.status, 201, created.text);
    }
    const replies = await inParallel(SALES, PARALLEL, (i) =>
      i % 3 === 2
        ? instance(i).request('POST', '/v1/customers/f0/balance/credit', {
            token: p.token,
            body: { amount: 25, amount_units: 'USD', is_currency: true },
          })
        : instance(i).request('POST', '/v1/transactions', {
            token: p.token,
            body: { key: `s${i}`, amount: 20, amount_units: 'USD', action: 'sale', customer: { id: 'r0' } },
          }),
    );
    const credits = replies.filter((reply, i) => i % 3 === 2 && reply.status < 300).length;
    for (const [i, reply] of replies.entries())
      assert.ok(reply.status < 300 || (i % 3 === 2 && reply.status === 422), reply.text);

    const db = server().deps.database.db;
    const referrer = Number(
      (
        await db
          .selectFrom('customers')
          .select('id')
          .where('program_id', '=', p.id)
          .where('public_id', '=', 'f0')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const earned = await db
      .selectFrom('rewards')
      .select(sql<string>`cast(coalesce(sum(amount), 0) as text)`.as('sum'))
      .where('program_id', '=', p.id)
      .where('customer_id', '=', referrer)
      .where('status', '=', 'ok')
      .executeTakeFirstOrThrow();
    const credited = await db
      .selectFrom('balance_credits')
      .select([
        sql<number>`count(*)`.as('count'),
        sql<string>`cast(coalesce(sum(amount), 0) as text)`.as('sum'),
      ])
      .where('program_id', '=', p.id)
      .where('customer_id', '=', referrer)
      .executeTakeFirstOrThrow();
    assert.equal(Number(credited.count), credits);
    assert.ok(credits > 0, 'some credits went through');
    const [balance] = await entityFigure(server(), p.id, 'customer', referrer, 'balance:usd');
    assert.equal(balance, BigInt(earned.sum) - BigInt(credited.sum));
    assert.ok(balance >= 0n, `balance ${balance}`);
    assert.equal(
      (await entityFigure(server(), p.id, 'customer', referrer, 'revenue:usd'))[0],
      BigInt(SALES - SALES / 3) * 20_000_000n,
    );
  });
});
