import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram } from '../../../test/harness.ts';

describeEachDatabase('customer balance', (server) => {
  const post = <const P extends string>(p: TestProgram<'referral'>, path: P, body: unknown) =>
    server().request('POST', path, { token: p.token, body });
  const balanceOf = async (p: TestProgram<'referral'>, id: string) => {
    const res = await server().request('GET', `/v1/customers/${id}/balance`, { token: p.token });
    assert.equal(res.status, 200, res.text);
    return res.body.data.balance;
  };

  /** A referrer `ref` with `sales` rewards of 10 USD and 5 points each, earned through `buyer`. */
  async function withRewards(sales: number) {
    const p = await server().newProgram('referral');
    const reward = (extra: object) => ({
      type: 'fixed',
      value: 10,
      is_currency: true,
      amount_units: 'USD',
      trigger: 'every_purchase',
      limit: null,
      ...extra,
    });
    await server().request('PUT', '/v1/program', {
      token: p.token,
      body: {
        program_settings: {
          referrer_reward: reward({}),
          referred_reward: reward({ value: 5, is_currency: false, amount_units: 'points' }),
        },
      },
    });
    await post(p, '/v1/customers', { id: 'ref', email: 'ref@example.com' });
    await post(p, '/v1/customers', {
      id: 'buyer',
      email: 'buyer@example.com',
      referring_customer: { id: 'ref' },
    });
    for (let i = 0; i < sales; i++) {
      const res = await post(p, '/v1/transactions', {
        amount: 50,
        action: 'sale',
        customer: { id: 'buyer' },
      });
      assert.equal(res.status, 200, res.text);
    }
    return p;
  }

  test('the balance shows the customer, currency balances and non-currency rewards', async () => {
    const p = await withRewards(2);
    const res = await server().request('GET', '/v1/customers/ref/balance', { token: p.token });
    assert.equal(res.body.data.customer.id, 'ref');
    assert.deepEqual(res.body.data.balance, {
      currency: [{ amount: 20, amount_units: 'USD', is_currency: true }],
      non_currency: [],
    });
    const buyer = await balanceOf(p, 'buyer');
    assert.deepEqual(buyer.currency, []);
    assert.equal(buyer.non_currency.length, 2);
    assert.equal(buyer.non_currency[0]?.reward_type, 'points');
    assert.equal(buyer.non_currency[0]?.reward_value, 5);
    assert.equal(buyer.non_currency[0]?.commission_type, 'fixed');
    const fresh = await post(p, '/v1/customers', { id: 'fresh', email: 'fresh@example.com' });
    assert.equal(fresh.status, 201);
    assert.deepEqual(await balanceOf(p, 'fresh'), { currency: [], non_currency: [] });
  });

  test('a credit is deducted, unit codes case-insensitive; non-currency units too', async () => {
    const p = await withRewards(2);
    const res = await post(p, '/v1/customers/ref/balance/credit', {
      amount: 12.5,
      amount_units: 'usd',
      is_currency: true,
    });
    assert.deepEqual(res.body, { status: 1 });
    assert.deepEqual((await balanceOf(p, 'ref')).currency, [
      { amount: 7.5, amount_units: 'USD', is_currency: true },
    ]);
    const units = await post(p, '/v1/customers/buyer/balance/credit', {
      amount: '10',
      amount_units: 'POINTS',
      is_currency: false,
    });
    assert.equal(units.status, 200, units.text);
    const more = await post(p, '/v1/customers/buyer/balance/credit', {
      amount: 1,
      amount_units: 'points',
      is_currency: false,
    });
    assert.equal(more.status, 422);
    const stored = await server()
      .deps.database.db.selectFrom('balance_credits')
      .select(['amount', 'amount_units'])
      .where('program_id', '=', p.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      stored.map((r) => [Number(r.amount), r.amount_units]),
      [
        [12_500_000, 'USD'],
        [10_000_000, 'points'],
      ],
    );
  });

  const invalid: [string, unknown, string][] = [
    ['a negative amount', { amount: -1, amount_units: 'USD', is_currency: true }, 'amount'],
    ['a zero amount', { amount: 0, amount_units: 'USD', is_currency: true }, 'amount'],
    ['a negative amount as text', { amount: '-5', amount_units: 'USD', is_currency: true }, 'amount'],
    ['a non-numeric amount', { amount: 'ten', amount_units: 'USD', is_currency: true }, 'amount'],
    ['more than the balance', { amount: 20.01, amount_units: 'USD', is_currency: true }, 'amount'],
    ['a currency it never earned', { amount: 1, amount_units: 'EUR', is_currency: true }, 'amount'],
    ['no units', { amount: 1, is_currency: true }, 'amount_units'],
    ['not a currency code', { amount: 1, amount_units: 'dollars', is_currency: true }, 'amount_units'],
    ['no is_currency', { amount: 1, amount_units: 'USD' }, 'is_currency'],
  ];
  for (const [name, body, field] of invalid) {
    test(`a credit with ${name} answers 422 on ${field} and changes nothing`, async () => {
      const p = await withRewards(2);
      const res = await post(p, '/v1/customers/ref/balance/credit', body);
      assert.equal(res.status, 422, res.text);
      assert.ok(res.error.errors[field], JSON.stringify(res.error.errors));
      assert.deepEqual((await balanceOf(p, 'ref')).currency, [
        { amount: 20, amount_units: 'USD', is_currency: true },
      ]);
    });
  }

  test('an unknown customer, or another program’s, answers 404', async () => {
    const p = await withRewards(1);
    const other = await server().newProgram('referral');
    const body = { amount: 1, amount_units: 'USD', is_currency: true };
    assert.equal(
      (await server().request('GET', '/v1/customers/ref/balance', { token: other.token })).status,
      404,
    );
    assert.equal((await post(other, '/v1/customers/ref/balance/credit', body)).status, 404);
    assert.equal((await post(p, '/v1/customers/nobody/balance/credit', body)).status, 404);
  });

  test('concurrent credits never take the balance below zero', async () => {
    const p = await withRewards(3); // 30 USD
    const replies = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(p, '/v1/customers/ref/balance/credit', { amount: 4, amount_units: 'USD', is_currency: true }),
      ),
    );
    const ok = replies.filter((r) => r.status === 200).length;
    assert.equal(ok, 7, replies.map((r) => r.status).join(','));
    assert.ok(replies.every((r) => r.status === 200 || r.status === 422));
    assert.deepEqual((await balanceOf(p, 'ref')).currency, [
      { amount: 2, amount_units: 'USD', is_currency: true },
    ]);
    const credits = await server()
      .deps.database.db.selectFrom('balance_credits')
      .select('id')
      .where('program_id', '=', p.id)
      .execute();
    assert.equal(credits.length, 7);
  });
});
