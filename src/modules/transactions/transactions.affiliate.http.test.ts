import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  ManualClock,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';

/** A program with a partner `pk` (and its customer `ck`), for sales. */
async function setup(server: TestServer, settings?: Record<string, unknown>) {
  const p = await server.newProgram('affiliate');
  await listenToEvents(server, p);
  if (settings) {
    const res = await server.request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: settings },
    });
    assert.equal(res.status, 200, res.text);
  }
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'pk@example.com', key: 'pk' },
  });
  await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key: 'ck', partner: { key: 'pk' } },
  });
  return { p, partnerId: partner.body.data.id };
}

const sell = (server: TestServer, p: TestProgram<'affiliate'>, body: Record<string, unknown>) =>
  server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { action: 'sale', customer: { key: 'ck' }, ...body },
  });

const figures = async (server: TestServer, p: TestProgram<'affiliate'>, id: string) =>
  (await server.request('GET', `/v1/partners/${id}`, { token: p.token })).body.data;

const eventCount = async (server: TestServer, p: TestProgram<'affiliate'>, event: string) =>
  (await recordedEvents(server, p)).filter((e) => e.event === event).length;

describeEachDatabase('transactions (affiliate)', (server) => {
  test('a sale answers the transaction with its commission and feeds the partner figures', async () => {
    const { p, partnerId } = await setup(server(), { commission: { type: 'percent', value: 30 } });
    const res = await sell(server(), p, {
      key: 'pay-1',
      amount: 99.99,
      amount_units: 'usd',
      product_id: 'sku-1',
    });
    assert.equal(res.status, 200, res.text);
    const { created_at, rewards, ...tx } = res.body.data;
    assert.deepEqual(tx, {
      key: 'pay-1',
      action: 'sale',
      amount: 99.99,
      partner: partnerId,
      customer: 'ck',
      credit: false,
      is_currency: true,
      amount_units: 'USD',
      deleted_at: null,
      refunded_amount: 0,
    });
    assert.equal(rewards.length, 1);
    assert.deepEqual(
      { ...rewards[0], created_at: undefined },
      {
        key: 'pay-1',
        action: 'sale',
        status: 'ok',
        customer: 'ck',
        partner: partnerId,
        amount: 29.997,
        amount_units: 'USD',
        is_currency: true,
        credit: false,
        created_at: undefined,
        deleted_at: null,
        product_type_data: { product_id: 'sku-1', product_type: null },
      },
    );
    const data = await figures(server(), p, partnerId);
    assert.deepEqual(data.referrals, {
      clicks: 0,
      signups: 1,
      revenue: [{ currency: 'USD', amount: 99.99 }],
      sales_count: 1,
      paid_accounts: 1,
    });
    assert.deepEqual(data.commissions, {
      paid: 0,
      pending: [],
      not_paid: [{ currency: 'USD', amount: 29.997 }],
    });
    const overview = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(overview.total_sales, 1);
    assert.deepEqual(overview.total_revenue_from_sales, { usd: '$99.99' });
    assert.equal(await eventCount(server(), p, 'transaction.created'), 1);
    const fetched = await server().request('GET', '/v1/transactions/pay-1', { token: p.token });
    assert.deepEqual(fetched.body.data, res.body.data);
  });

  test('amount as a numeric string; not a number → 422 amount; missing fields → 422', async () => {
    const { p } = await setup(server());
    const ok = await sell(server(), p, { amount: '12.50' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.amount, 12.5);
    assert.match(ok.body.data.key, /^[A-Za-z0-9]{12}$/);
    const bad = await sell(server(), p, { amount: 'ten' });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.error.errors.amount, ['The amount field must be a number.']);
    const missing = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: { customer: { key: 'ck' } },
    });
    assert.deepEqual(Object.keys(missing.error.errors).sort(), ['action', 'amount']);
    // Every required field of an empty body in one answer, not one round per field.
    const empty = await server().request('POST', '/v1/transactions', { token: p.token, body: {} });
    assert.equal(empty.status, 422);
    assert.deepEqual(Object.keys(empty.error.errors).sort(), ['action', 'amount', 'customer']);
    assert.equal(empty.error.message, 'The amount field is required. (and 2 more errors)');
  });

  test('an unknown customer needs create_customer; with it the customer is created for customer.partner', async () => {
    const { p, partnerId } = await setup(server());
    const unknown = await sell(server(), p, { amount: 10, customer: { key: 'new-buyer' } });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.error.errors, { customer: ['The selected customer is invalid.'] });
    const noPartner = await sell(server(), p, {
      amount: 10,
      customer: { key: 'new-buyer' },
      options: { create_customer: 'true' },
    });
    assert.equal(noPartner.status, 422);
    assert.ok(noPartner.error.errors['customer.partner']);
    const created = await sell(server(), p, {
      amount: 10,
      customer: { key: 'new-buyer', email: 'nb@example.com', partner: { key: 'pk' } },
      options: { create_customer: 'true' },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.data.customer, 'new-buyer');
    assert.equal(created.body.data.partner, partnerId);
    const customer = await server().request('GET', '/v1/customers/new-buyer', { token: p.token });
    assert.equal(customer.body.data.email, 'nb@example.com');
    assert.equal((await figures(server(), p, partnerId)).referrals.signups, 2);
  });

  test('the same key with the same body replays; with another body it is taken', async () => {
    const { p, partnerId } = await setup(server());
    const first = await sell(server(), p, { key: 'k1', amount: 10 });
    const again = await sell(server(), p, { key: 'k1', amount: '10' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    const other = await sell(server(), p, { key: 'k1', amount: 11 });
    assert.equal(other.status, 422);
    assert.deepEqual(other.error.errors, { key: ['The key has already been taken.'] });
    assert.equal((await figures(server(), p, partnerId)).referrals.sales_count, 1);
    assert.equal(await eventCount(server(), p, 'transaction.created'), 1);
  });

  test('the multiple form stores all or nothing', async () => {
    const { p, partnerId } = await setup(server());
    const bad = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: {
        customer: { key: 'ck' },
        transactions: [
          { key: 'm1', amount: 10, action: 'sale' },
          { key: 'm2', amount: 'x', action: 'sale' },
        ],
      },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys(bad.error.errors), ['transactions.1.amount']);
    const taken = await sell(server(), p, { key: 'm0', amount: 5 });
    assert.equal(taken.status, 200);
    const conflict = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: {
        customer: { key: 'ck' },
        transactions: [
          { key: 'm1', amount: 10, action: 'sale' },
          { key: 'm0', amount: 6, action: 'sale' },
        ],
      },
    });
    assert.equal(conflict.status, 422);
    assert.deepEqual(conflict.error.errors, {
      'transactions.1.key': ['The transactions.1.key has already been taken.'],
    });
    assert.equal((await server().request('GET', '/v1/transactions/m1', { token: p.token })).status, 404);
    const ok = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: {
        customer: { key: 'ck' },
        transactions: [
          { key: 'm1', amount: 10, action: 'sale' },
          { key: 'm2', amount: 20, action: 'sale' },
        ],
      },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      ok.body.data.map((t: { key: string }) => t.key),
      ['m1', 'm2'],
    );
    assert.equal((await figures(server(), p, partnerId)).referrals.sales_count, 3);
  });

  test('archive takes the sale and its commission out of every total; revoke brings them back', async () => {
    const { p, partnerId } = await setup(server());
    await sell(server(), p, { key: 'a1', amount: 100 });
    await sell(server(), p, { key: 'a2', amount: 50 });
    assert.deepEqual(
      (await server().request('POST', '/v1/transactions/a1/archive', { token: p.token })).body,
      {
        status: 1,
      },
    );
    let data = await figures(server(), p, partnerId);
    assert.deepEqual(data.referrals.revenue, [{ currency: 'USD', amount: 50 }]);
    assert.deepEqual(data.commissions.not_paid, [{ currency: 'USD', amount: 10 }]);
    const list = await server().request('GET', '/v1/transactions', { token: p.token });
    assert.deepEqual(
      list.body.data.map((t: { key: string }) => t.key),
      ['a2'],
    );
    const archived = await server().request('GET', '/v1/transactions/a1', { token: p.token });
    assert.notEqual(archived.body.data.deleted_at, null);
    await server().request('POST', '/v1/transactions/a1/archive', { token: p.token });
    await server().request('POST', '/v1/transactions/a1/revoke-archive', { token: p.token });
    data = await figures(server(), p, partnerId);
    assert.deepEqual(data.referrals.revenue, [{ currency: 'USD', amount: 150 }]);
    assert.deepEqual(data.commissions.not_paid, [{ currency: 'USD', amount: 30 }]);
    assert.equal(data.referrals.sales_count, 2);
  });

  test('delete by path or body takes back the figures; unknown → 404', async () => {
    const { p, partnerId } = await setup(server());
    await sell(server(), p, { key: 'd1', amount: 100 });
    await sell(server(), p, { key: 'd2', amount: 100 });
    assert.deepEqual((await server().request('DELETE', '/v1/transactions/d1', { token: p.token })).body, {
      status: 1,
    });
    assert.deepEqual(
      (await server().request('DELETE', '/v1/transactions', { token: p.token, body: { key: 'd2' } })).body,
      { status: 1 },
    );
    const data = await figures(server(), p, partnerId);
    assert.deepEqual(data.referrals, {
      clicks: 0,
      signups: 1,
      revenue: [],
      sales_count: 0,
      paid_accounts: 0,
    });
    assert.deepEqual(data.commissions, { paid: 0, pending: [], not_paid: [] });
    assert.equal((await server().request('DELETE', '/v1/transactions/d1', { token: p.token })).status, 404);
    assert.equal(await eventCount(server(), p, 'transaction.deleted'), 2);
  });

  test('rewardable: false earns nothing; rewarded: true counts as paid', async () => {
    const { p, partnerId } = await setup(server());
    const none = await sell(server(), p, { amount: 100, rewardable: false });
    assert.deepEqual(none.body.data.rewards, []);
    const paid = await sell(server(), p, { amount: 100, rewarded: 'true' });
    assert.equal(paid.body.data.rewards[0]?.status, 'paid');
    const data = await figures(server(), p, partnerId);
    assert.deepEqual(data.commissions, { paid: 20, pending: [], not_paid: [] });
    assert.equal(data.referrals.sales_count, 2);
  });

  test('product overrides and tier two through the program settings', async () => {
    const p = await server().newProgram('affiliate');
    await server().request('PUT', '/v1/program', {
      token: p.token,
      body: {
        program_settings: {
          commission: { type: 'fixed', value: 5 },
          product_commissions: [{ product_type: 'plan', type: 'percent', value: 50 }],
          tier2_commission: { type: 'percent', value: 10 },
        },
      },
    });
    const settings = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program
      .program_settings;
    // Stored as sent, read with the documented defaults of what was left out.
    assert.deepEqual(settings.commission, {
      type: 'fixed',
      value: 5,
      duration: 'lifetime',
      duration_value: null,
    });
    assert.equal(settings.commission_hold_days, 0);
    const parent = (
      await server().request('POST', '/v1/partners', { token: p.token, body: { email: 'up@example.com' } })
    ).body.data;
    const child = (
      await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'down@example.com', key: 'pk', referring_partner: { id: parent.id } },
      })
    ).body.data;
    await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { key: 'ck', partner: { key: 'pk' } },
    });
    const plain = await sell(server(), p, { amount: 40 });
    assert.deepEqual(
      plain.body.data.rewards.map((r) => [r.partner, r.amount]),
      [
        [child.id, 5],
        [parent.id, 4],
      ],
    );
    const plan = await sell(server(), p, { amount: 40, product_type: 'plan' });
    assert.equal(plan.body.data.rewards[0]?.amount, 20);
    assert.deepEqual((await figures(server(), p, parent.id)).commissions.not_paid, [
      { currency: 'USD', amount: 8 },
    ]);
    const reset = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: { tier2_commission: null } },
    });
    assert.equal(reset.status, 200);
    const after = await sell(server(), p, { amount: 40 });
    assert.equal(after.body.data.rewards.length, 1);
    const invalid = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: { commission: { type: 'share', value: 1 } } },
    });
    assert.equal(invalid.status, 422);
    assert.ok(invalid.error.errors['program_settings.commission.type']);
  });

  test('list filters: key, customer[key], partner[key], partner_email', async () => {
    const { p } = await setup(server());
    await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'p2@example.com', key: 'p2' },
    });
    await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { key: 'c2', partner: { key: 'p2' } },
    });
    await sell(server(), p, { key: 'l1', amount: 1 });
    await sell(server(), p, { key: 'l2', amount: 1, customer: { key: 'c2' } });
    const keys = async (query: string) =>
      (await server().request('GET', `/v1/transactions?${query}`, { token: p.token })).body.data.map(
        (t: { key: string }) => t.key,
      );
    assert.deepEqual(await keys(''), ['l2', 'l1']);
    assert.deepEqual(await keys('key=l1'), ['l1']);
    assert.deepEqual(await keys('customer[key]=c2'), ['l2']);
    assert.deepEqual(await keys('partner[key]=pk'), ['l1']);
    assert.deepEqual(await keys('partner_email=p2@example.com'), ['l2']);
    assert.deepEqual(await keys('partner_key=ghost'), []);
    assert.deepEqual(await keys('sort=asc'), ['l1', 'l2']);
  });

  test('concurrent sales share commits, and a failing one is rolled back alone', async () => {
    const { p, partnerId } = await setup(server());
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sell(server(), p, { key: `c${i}`, amount: 10, ...(i === 7 ? { customer: { key: 'nobody' } } : {}) }),
      ),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      Array.from({ length: 20 }, (_, i) => (i === 7 ? 422 : 200)),
    );
    const data = await figures(server(), p, partnerId);
    assert.equal(data.referrals.sales_count, 19);
    assert.deepEqual(data.commissions.not_paid, [{ currency: 'USD', amount: 38 }]);
    assert.equal(await eventCount(server(), p, 'transaction.created'), 19);
    assert.equal((await server().request('GET', '/v1/transactions/c7', { token: p.token })).status, 404);
  });

  test("a sale of an archived partner's customer earns nothing; another program's transaction is not found", async () => {
    const { p, partnerId } = await setup(server());
    await server().request('POST', `/v1/partners/${partnerId}/archive`, { token: p.token });
    const res = await sell(server(), p, { key: 'x1', amount: 100 });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.rewards, []);
    const other = await server().newProgram('affiliate');
    assert.equal((await server().request('GET', '/v1/transactions/x1', { token: other.token })).status, 404);
  });
});

describe('commission hold', () => {
  const clock = new ManualClock();
  describeEachDatabase(
    'transactions (affiliate, hold period)',
    (server) => {
      test('a commission stays pending for the hold, then counts as not paid', async () => {
        const { p, partnerId } = await setup(server(), { commission_hold_days: 30 });
        const res = await sell(server(), p, { amount: 100 });
        assert.equal(res.body.data.rewards[0]?.status, 'review_period');
        let data = await figures(server(), p, partnerId);
        assert.deepEqual(data.commissions, {
          paid: 0,
          pending: [{ currency: 'USD', amount: 20 }],
          not_paid: [],
        });
        clock.advance(31 * 24 * 3600 * 1000);
        data = await figures(server(), p, partnerId);
        assert.deepEqual(data.commissions, {
          paid: 0,
          pending: [],
          not_paid: [{ currency: 'USD', amount: 20 }],
        });
        const tx = await server().request('GET', `/v1/transactions/${res.body.data.key}`, { token: p.token });
        assert.equal(tx.body.data.rewards[0]?.status, 'ok');
        await server().request('DELETE', `/v1/transactions/${res.body.data.key}`, { token: p.token });
        data = await figures(server(), p, partnerId);
        assert.deepEqual(data.commissions, { paid: 0, pending: [], not_paid: [] });
      });
    },
    { clock },
  );
});
