import assert from 'node:assert/strict';
import { test } from 'node:test';
import { affiliateProgramWithBuyer } from '../../../test/factories.ts';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

/**
 * Insert-or-replay under concurrency (contract §6): many identical creates at once answer 200
 * with one stored sale, one reward set and one event, on both databases; a different body with a
 * taken key is a 422 on `key`; a buyer created by several sales at once exists once.
 */

const CONCURRENCY = 50;

const post = <Sent>(server: TestServer, p: TestProgram, body: Sent) =>
  server.request('POST', '/v1/transactions', { token: p.token, body });

async function concurrently<Sent>(server: TestServer, p: TestProgram, bodies: Sent[]) {
  return Promise.all(bodies.map((body) => post(server, p, body)));
}

const events = async (server: TestServer, p: TestProgram, name: string) =>
  (await recordedEvents(server, p)).filter((e) => e.event === name);

async function listed(server: TestServer, p: TestProgram, query = '') {
  const res = await server.request('GET', `/v1/transactions?limit=250${query}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** One sale stored, with `rewards` rewards, and one `transaction.created` event. */
async function assertStoredOnce(server: TestServer, p: TestProgram, rewards: number) {
  const rows = await listed(server, p);
  assert.equal(rows.length, 1);
  const [row] = rows;
  assert.ok(row, 'the sale is stored');
  assert.equal(row.rewards.length, rewards);
  assert.equal((await events(server, p, 'transaction.created')).length, 1);
}

function assertAllSame(replies: { status: number; text: string; body: unknown }[]) {
  for (const reply of replies) assert.equal(reply.status, 200, reply.text);
  const first = JSON.stringify(itemAt(replies).body);
  for (const reply of replies) assert.equal(JSON.stringify(reply.body), first);
}

describeEachDatabase('transactions: insert-or-replay under concurrency (affiliate)', (server) => {
  test(`${CONCURRENCY} identical sales at once: 50 × 200, one sale, one commission, one event`, async () => {
    const { p, partnerId } = await affiliateProgramWithBuyer(server());
    const body = { key: 'pay-1', amount: '99.99', action: 'sale', customer: { key: 'ck' } };
    assertAllSame(
      await concurrently(
        server(),
        p,
        Array.from({ length: CONCURRENCY }, () => body),
      ),
    );
    await assertStoredOnce(server(), p, 1);
    const partner = (await server().request('GET', `/v1/partners/${partnerId}`, { token: p.token })).body
      .data;
    assert.equal(partner.referrals.sales_count, 1);
    assert.equal(partner.referrals.paid_accounts, 1);
  });

  test(`${CONCURRENCY} identical batches at once: every entry stored once`, async () => {
    const { p, partnerId } = await affiliateProgramWithBuyer(server());
    const body = {
      customer: { key: 'ck' },
      transactions: [1, 2, 3].map((n) => ({ key: `batch-${n}`, amount: n * 10, action: 'sale' })),
    };
    const replies = await concurrently(
      server(),
      p,
      Array.from({ length: CONCURRENCY }, () => body),
    );
    assertAllSame(replies);
    assert.equal(itemAt(replies).body.data.length, 3);
    assert.equal((await listed(server(), p)).length, 3);
    assert.equal((await events(server(), p, 'transaction.created')).length, 3);
    const partner = (await server().request('GET', `/v1/partners/${partnerId}`, { token: p.token })).body
      .data;
    assert.equal(partner.referrals.sales_count, 3);
  });

  test(`${CONCURRENCY} identical sales creating their buyer: one customer, one sale`, async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    const body = {
      key: 'pay-new',
      amount: 12.5,
      action: 'sale',
      customer: { key: 'new-buyer', email: 'new@example.com', partner: { key: 'pk' } },
      options: { create_customer: 'true' },
    };
    assertAllSame(
      await concurrently(
        server(),
        p,
        Array.from({ length: CONCURRENCY }, () => body),
      ),
    );
    const found = await server().request('GET', '/v1/customers:search?key=new-buyer', { token: p.token });
    assert.equal(found.body.data.length, 1);
    assert.equal((await events(server(), p, 'customer.created')).length, 2, 'ck and new-buyer');
    assert.equal((await listed(server(), p)).length, 1);
  });

  test('sales with different keys creating one buyer at once all go to the customer that won', async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      key: `pay-${i}`,
      amount: 1,
      action: 'sale',
      customer: { key: 'shared-buyer', partner: { key: 'pk' } },
      options: { create_customer: true },
    }));
    const replies = await concurrently(server(), p, bodies);
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    const rows = await listed(server(), p, '&customer[key]=shared-buyer');
    assert.equal(rows.length, 20);
    const found = await server().request('GET', '/v1/customers:search?key=shared-buyer', { token: p.token });
    assert.equal(found.body.data.length, 1);
  });

  test('the same key with another body at once: the same bodies replay, the others are 422 on key', async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    const bodies = Array.from({ length: 30 }, (_, i) => ({
      key: 'contested',
      amount: i % 2 === 0 ? 10 : 20,
      action: 'sale',
      customer: { key: 'ck' },
    }));
    const replies = await concurrently(server(), p, bodies);
    const ok = replies.filter((r) => r.status === 200);
    const taken = replies.filter((r) => r.status === 422);
    assert.equal(ok.length + taken.length, replies.length, replies.map((r) => r.text).join('\n'));
    assert.equal(ok.length, 15);
    for (const reply of taken)
      assert.deepEqual(reply.error.errors, { key: ['The key has already been taken.'] });
    assert.equal((await listed(server(), p)).length, 1);
  });
});

describeEachDatabase('transactions: creation order under concurrency', (server) => {
  test('sales recorded 8 at a time list in created_at order, both ways', async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    for (let from = 0; from < 64; from += 8) {
      const bodies = Array.from({ length: 8 }, (_, i) => ({
        key: `order-${from + i}`,
        amount: 1,
        action: 'sale',
        customer: { key: 'ck' },
      }));
      for (const reply of await concurrently(server(), p, bodies))
        assert.equal(reply.status, 200, reply.text);
    }
    for (const sort of ['asc', 'desc'] as const) {
      const res = await server().request('GET', `/v1/transactions?limit=250&sort=${sort}`, {
        token: p.token,
      });
      const times = res.body.data.map((row) => row.created_at);
      assert.equal(times.length, 64);
      for (let i = 1; i < times.length; i++) {
        const earlier = itemAt(times, i - 1);
        const later = itemAt(times, i);
        const inOrder = sort === 'asc' ? earlier <= later : earlier >= later;
        assert.ok(inOrder, `${sort}: ${earlier} then ${later}`);
      }
    }
  });
});

describeEachDatabase('transactions: insert-or-replay under concurrency (refer-a-friend)', (server) => {
  async function referralProgram() {
    const p = await server().newProgram('referral');
    await listenToEvents(server(), p);
    const referrer = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { email: 'ref@example.com', key: 'ref' },
    });
    assert.equal(referrer.status, 201, referrer.text);
    return { p, referrerId: referrer.body.data.id };
  }

  test(`${CONCURRENCY} identical purchases creating their buyer: one buyer, one reward pair, one event`, async () => {
    const { p, referrerId } = await referralProgram();
    const body = {
      key: 'buy-1',
      amount: 50,
      amount_units: 'usd',
      action: 'sale',
      customer: { key: 'friend', email: 'friend@example.com', referring_customer: { key: 'ref' } },
      options: { create_customer: true },
    };
    assertAllSame(
      await concurrently(
        server(),
        p,
        Array.from({ length: CONCURRENCY }, () => body),
      ),
    );
    await assertStoredOnce(server(), p, 2);
    const balance = await server().request('GET', `/v1/customers/${referrerId}/balance`, { token: p.token });
    assert.deepEqual(
      balance.body.data.balance.currency.map((c: { amount: number }) => c.amount),
      [10],
    );
    const referrals = await server().request('GET', `/v1/customers/${referrerId}/referrals`, {
      token: p.token,
    });
    assert.equal(referrals.body.data.length, 1);
  });
});
