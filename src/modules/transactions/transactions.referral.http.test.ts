import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  dataOf,
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
} from '../../../test/harness.ts';
import { firstItems, itemAt } from '../../../test/items.ts';

describeEachDatabase('refer-a-friend transactions', (server) => {
  const post = <const P extends string, Sent>(p: TestProgram<'referral'>, path: P, body: Sent) =>
    server().request('POST', path, { token: p.token, body });
  const getData = async <const P extends string>(p: TestProgram<'referral'>, path: P) => {
    const res = await server().request('GET', path, { token: p.token });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return dataOf(res);
  };

  /** A program with a referrer `ref` and a referred buyer `buyer`. */
  async function setup(settings?: Record<string, unknown>) {
    const p = await server().newProgram('referral');
    await listenToEvents(server(), p);
    if (settings) {
      const put = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: settings },
      });
      assert.equal(put.status, 200, put.text);
    }
    await post(p, '/v1/customers', { id: 'ref', key: 'ref-key', email: 'ref@example.com' });
    await post(p, '/v1/customers', {
      id: 'buyer',
      key: 'buyer-key',
      email: 'buyer@example.com',
      referring_customer: { id: 'ref' },
    });
    await post(p, '/v1/customers', { id: 'loner', email: 'loner@example.com' });
    return p;
  }

  const every = (value: number, extra: object = {}) => ({
    type: 'fixed',
    value,
    is_currency: true,
    amount_units: 'USD',
    trigger: 'every_purchase',
    limit: null,
    ...extra,
  });

  test('a sale of a referred customer earns both rewards (defaults: 10 USD each, first purchase)', async () => {
    const p = await setup();
    const res = await post(p, '/v1/transactions', {
      key: 'sale-1',
      amount: 99.99,
      amount_units: 'usd',
      action: 'sale',
      customer: { id: 'buyer' },
    });
    assert.equal(res.status, 200, res.text);
    const t = res.body.data;
    assert.equal(t.key, 'sale-1');
    assert.equal(t.amount, 99.99);
    assert.equal(t.amount_units, 'USD');
    assert.equal(t.partner, 'ref');
    assert.equal(t.customer, 'buyer');
    assert.equal(t.rewards.length, 2);
    const [forReferrer, forBuyer] = firstItems(t.rewards, 2);
    assert.deepEqual(
      {
        customer: forReferrer.customer,
        referred_customer: forReferrer.referred_customer,
        amount: forReferrer.amount,
      },
      { customer: 'ref', referred_customer: 'buyer', amount: 10 },
    );
    assert.equal(forBuyer.customer, 'buyer');
    assert.equal(forBuyer.status, 'ok');
    assert.equal(forBuyer.key, 'sale-1');
    assert.deepEqual(forBuyer.product_type_data, []);

    // Fetch and list: the referrer in `customer`, the buyer in `referred_customer`.
    const fetched = await getData(p, '/v1/transactions/sale-1');
    assert.equal(fetched.customer, 'ref');
    assert.equal(fetched.referred_customer, 'buyer');
    assert.equal('partner' in fetched, false);
    const list = await server().request('GET', '/v1/transactions', { token: p.token });
    assert.deepEqual(
      list.body.data.map((x) => x.key),
      ['sale-1'],
    );
    const filtered = await server().request('GET', '/v1/transactions?customer[key]=ref-key', {
      token: p.token,
    });
    assert.equal(filtered.body.data.length, 1);

    // A second purchase: first_purchase rewards are done.
    const second = await post(p, '/v1/transactions', {
      amount: 10,
      action: 'sale',
      customer: { key: 'buyer-key' },
    });
    assert.equal(second.body.data.rewards.length, 0);

    const refBalance = await getData(p, '/v1/customers/ref/balance');
    assert.deepEqual(refBalance.balance.currency, [{ amount: 10, amount_units: 'USD', is_currency: true }]);
    const stats = await getData(p, '/v1/customers/ref/stats');
    assert.deepEqual(stats.referrals, {
      clicks: 0,
      signups: 1,
      // The second sale names no currency: it counts in the program's (USD).
      revenue: [{ currency: 'USD', amount: 109.99 }],
      sales_count: 2,
      paid_accounts: 1,
    });
    const overview = await getData(p, '/v1/program');
    assert.equal(overview.total_sales, 2);
    assert.deepEqual(overview.total_revenue_from_sales, { usd: '$109.99' });

    const theirs = await getData(p, '/v1/customers/ref/transactions');
    assert.deepEqual(theirs.map((x) => x.key).sort(), [second.body.data.key, 'sale-1'].sort());
    assert.ok(theirs.every((x) => x.customer === 'ref' && x.referred_customer === 'buyer'));
  });

  test('a non-referred buyer answers 422 on customer; nothing is stored', async () => {
    const p = await setup();
    const res = await post(p, '/v1/transactions', { amount: 5, action: 'sale', customer: { id: 'loner' } });
    assert.equal(res.status, 422, res.text);
    assert.match(res.error.errors.customer?.[0] ?? '', /referred customers only/);
    assert.deepEqual((await server().request('GET', '/v1/transactions', { token: p.token })).body.data, []);
  });

  test('an unknown buyer: 422 without create_customer; created with its referrer with it', async () => {
    const p = await setup();
    const unknown = await post(p, '/v1/transactions', {
      amount: 5,
      action: 'sale',
      customer: { email: 'new@example.com' },
    });
    assert.equal(unknown.status, 422);
    assert.ok(unknown.error.errors.customer);
    const created = await post(p, '/v1/transactions', {
      amount: '20',
      action: 'sale',
      options: { create_customer: 'true' },
      customer: { email: 'new@example.com', name: 'Neo', referring_customer: { key: 'ref-key' } },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.data.partner, 'ref');
    const buyer = await server().request('GET', `/v1/customers/${created.body.data.customer}`, {
      token: p.token,
    });
    assert.equal(buyer.body.data.email, 'new@example.com');
    assert.equal(buyer.body.data.referring_customer?.id, 'ref');
    const badRef = await post(p, '/v1/transactions', {
      amount: 1,
      action: 'sale',
      options: { create_customer: true },
      customer: { email: 'other@example.com', referring_customer: { id: 'nobody' } },
    });
    assert.equal(badRef.status, 422);
    assert.ok(badRef.error.errors['customer.referring_customer'], badRef.text);
    const takenEmail = await post(p, '/v1/transactions', {
      amount: 1,
      action: 'sale',
      options: { create_customer: true },
      customer: { id: 'fresh-id', email: 'ref@example.com', referring_customer: { id: 'ref' } },
    });
    assert.equal(takenEmail.status, 422, takenEmail.text);
    assert.deepEqual(takenEmail.error.errors, {
      'customer.email': ['The customer.email has already been taken.'],
    });
    const events = await recordedEvents(server(), p);
    assert.ok(events.some((e) => e.event === 'customer.created' && e.payload.email === 'new@example.com'));
  });

  test('percent, non-currency units, every purchase and limits follow the settings', async () => {
    const p = await setup({
      referrer_reward: {
        type: 'percent',
        value: 30,
        is_currency: true,
        amount_units: 'EUR',
        trigger: 'every_purchase',
        limit: 2,
      },
      referred_reward: every(50, { is_currency: false, amount_units: 'points' }),
    });
    for (const key of ['a', 'b', 'c']) {
      const res = await post(p, '/v1/transactions', {
        key,
        amount: 99.99,
        amount_units: 'EUR',
        action: 'sale',
        customer: { id: 'buyer' },
      });
      assert.equal(res.status, 200, res.text);
    }
    const c = await getData(p, '/v1/transactions/c');
    assert.deepEqual(
      c.rewards.map((r) => [r.customer, r.amount, r.amount_units, r.is_currency]),
      [['buyer', 50, 'points', false]],
    );
    const a = await getData(p, '/v1/transactions/a');
    assert.deepEqual(a.rewards[0]?.amount, 29.997);
    const ref = await getData(p, '/v1/customers/ref/balance');
    assert.deepEqual(ref.balance.currency, [{ amount: 59.994, amount_units: 'EUR', is_currency: true }]);
    const buyer = await getData(p, '/v1/customers/buyer/balance');
    assert.deepEqual(buyer.balance.currency, []);
    assert.equal(buyer.balance.non_currency.length, 3);
    assert.deepEqual(
      { ...buyer.balance.non_currency[0], created_at: undefined },
      { reward_type: 'points', commission_type: 'fixed', reward_value: 50, created_at: undefined },
    );
  });

  test('rewardable false earns nothing; rewarded true records paid rewards outside the balance', async () => {
    const p = await setup({ referrer_reward: every(5), referred_reward: null });
    const none = await post(p, '/v1/transactions', {
      amount: 10,
      action: 'sale',
      rewardable: false,
      customer: { id: 'buyer' },
    });
    assert.deepEqual(none.body.data.rewards, []);
    const paid = await post(p, '/v1/transactions', {
      amount: 10,
      action: 'sale',
      rewarded: 'true',
      customer: { id: 'buyer' },
    });
    assert.equal(paid.body.data.rewards[0]?.status, 'paid');
    assert.deepEqual((await getData(p, '/v1/customers/ref/balance')).balance.currency, []);
  });

  test('the same key replays; another body with it is 422; amount must be a number', async () => {
    const p = await setup();
    const body = { key: 'k1', amount: 12, action: 'sale', customer: { id: 'buyer' } };
    const first = await post(p, '/v1/transactions', body);
    const again = await post(p, '/v1/transactions', body);
    assert.deepEqual(again.body, first.body);
    const other = await post(p, '/v1/transactions', { ...body, amount: 13 });
    assert.equal(other.status, 422);
    assert.deepEqual(other.error.errors, { key: ['The key has already been taken.'] });
    const nan = await post(p, '/v1/transactions', {
      amount: 'ten',
      action: 'sale',
      customer: { id: 'buyer' },
    });
    assert.equal(nan.status, 422);
    assert.ok(nan.error.errors.amount);
    const events = await recordedEvents(server(), p);
    assert.equal(events.filter((e) => e.event === 'transaction.created').length, 1);
  });

  test('the multiple form is all-or-nothing', async () => {
    const p = await setup({ referrer_reward: every(1), referred_reward: every(2) });
    const ok = await post(p, '/v1/transactions', {
      customer: { id: 'buyer' },
      transactions: [
        { key: 'm1', amount: 1, action: 'sale' },
        { key: 'm2', amount: 2, action: 'sale' },
      ],
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.length, 2);
    assert.equal(itemAt(ok.body.data, 1).rewards.length, 2);
    const bad = await post(p, '/v1/transactions', {
      customer: { id: 'buyer' },
      transactions: [
        { key: 'm3', amount: 1, action: 'sale' },
        { key: 'm1', amount: 5, action: 'sale' },
      ],
    });
    assert.equal(bad.status, 422, bad.text);
    assert.equal((await server().request('GET', '/v1/transactions/m3', { token: p.token })).status, 404);
    assert.deepEqual((await getData(p, '/v1/customers/ref/balance')).balance.currency, [
      { amount: 2, amount_units: 'USD', is_currency: true },
    ]);
  });

  test('delete and archive take back figures and balances; revoke brings them back', async () => {
    const p = await setup({ referrer_reward: every(7), referred_reward: every(3) });
    await post(p, '/v1/transactions', {
      key: 'x',
      amount: 40,
      amount_units: 'USD',
      action: 'sale',
      customer: { id: 'buyer' },
    });
    const balance = async (id: string) =>
      (await getData(p, `/v1/customers/${id}/balance`)).balance.currency[0]?.amount ?? 0;
    assert.equal(await balance('ref'), 7);
    assert.equal((await post(p, '/v1/transactions/x/archive', {})).status, 200);
    assert.equal(await balance('ref'), 0);
    assert.equal((await getData(p, '/v1/customers/ref/stats')).referrals.paid_accounts, 0);
    assert.equal((await post(p, '/v1/transactions/x/revoke-archive', {})).status, 200);
    assert.equal(await balance('ref'), 7);
    assert.equal(await balance('buyer'), 3);
    const del = await server().request('DELETE', '/v1/transactions/x', { token: p.token });
    assert.equal(del.status, 200);
    assert.equal(await balance('ref'), 0);
    const stats = (await getData(p, '/v1/customers/ref/stats')).referrals;
    assert.deepEqual([stats.sales_count, stats.paid_accounts, stats.revenue[0]?.amount ?? 0], [0, 0, 0]);
    assert.equal((await getData(p, '/v1/program')).total_sales, 0);
  });

  test("deleting the buyer takes back its sales from the referrer's figures", async () => {
    const p = await setup({ referrer_reward: every(7), referred_reward: null });
    await post(p, '/v1/transactions', {
      amount: 40,
      amount_units: 'USD',
      action: 'sale',
      customer: { id: 'buyer' },
    });
    assert.equal((await server().request('DELETE', '/v1/customers/buyer', { token: p.token })).status, 200);
    const stats = await getData(p, '/v1/customers/ref/stats');
    assert.equal(stats.referrals.sales_count, 0);
    assert.equal(stats.customer.referrals_count, 0);
    assert.deepEqual((await getData(p, '/v1/customers/ref/balance')).balance.currency, [
      { amount: 0, amount_units: 'USD', is_currency: true },
    ]);
  });

  test('customer transactions take limit 10 to 100', async () => {
    const p = await setup();
    for (const limit of ['5', '101']) {
      const res = await server().request('GET', `/v1/customers/ref/transactions?limit=${limit}`, {
        token: p.token,
      });
      assert.equal(res.status, 422, res.text);
      assert.ok(res.error.errors.limit);
    }
    assert.equal(
      (await server().request('GET', '/v1/customers/ref/transactions?limit=10', { token: p.token })).status,
      200,
    );
    assert.equal(
      (await server().request('GET', '/v1/customers/nobody/transactions', { token: p.token })).status,
      404,
    );
  });
});
