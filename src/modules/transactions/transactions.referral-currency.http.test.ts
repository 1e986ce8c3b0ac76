import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataOf, describeEachDatabase, type TestProgram } from '../../../test/harness.ts';
import { present } from '../../core/present.ts';

/** A refer-a-friend purchase without `amount_units` counts in the program's `currency`, as affiliate sales do. */
describeEachDatabase('refer-a-friend purchases without a currency', (server) => {
  const post = <const P extends string>(p: TestProgram<'referral'>, path: P, body: unknown) =>
    server().request('POST', path, { token: p.token, body });

  async function referredBuyer(settings?: Record<string, unknown>) {
    const p = await server().newProgram('referral');
    if (settings) {
      const put = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: settings },
      });
      assert.equal(put.status, 200, put.text);
    }
    await post(p, '/v1/customers', { id: 'ref', email: 'ref@example.com' });
    await post(p, '/v1/customers', {
      id: 'buyer',
      email: 'buyer@example.com',
      referring_customer: { id: 'ref' },
    });
    return p;
  }

  const get = async <const P extends string>(p: TestProgram<'referral'>, path: P) => {
    const res = await server().request('GET', path, { token: p.token });
    assert.equal(res.status, 200, res.text);
    return dataOf(res);
  };

  test('revenue, the sale and the referrer’s figures use the default USD', async () => {
    const p = await referredBuyer();
    const program = await get(p, '/v1/program');
    assert.equal(program.program.program_settings.currency, 'USD');
    const sale = await post(p, '/v1/transactions', {
      key: 's1',
      amount: 40,
      action: 'sale',
      customer: { id: 'buyer' },
    });
    assert.equal(sale.status, 200, sale.text);
    assert.equal(sale.body.data.amount_units, 'USD');
    assert.equal(sale.body.data.rewards.length, 2);
    const overview = await get(p, '/v1/program');
    assert.deepEqual(overview.total_revenue_from_sales, { usd: '$40.00' });
    const stats = await get(p, '/v1/customers/ref/stats');
    assert.deepEqual(stats.referrals.revenue, [{ currency: 'USD', amount: 40 }]);
  });

  test('a program in EUR: the purchase and a percent reward are in EUR', async () => {
    const p = await referredBuyer({
      currency: 'eur',
      referrer_reward: {
        type: 'percent',
        value: 10,
        is_currency: true,
        amount_units: 'USD',
        trigger: 'every_purchase',
        limit: null,
      },
    });
    assert.equal((await get(p, '/v1/program')).program.program_settings.currency, 'EUR');
    const sale = await post(p, '/v1/transactions', {
      key: 's1',
      amount: 50,
      action: 'sale',
      customer: { id: 'buyer' },
    });
    assert.equal(sale.status, 200, sale.text);
    assert.equal(sale.body.data.amount_units, 'EUR');
    const referrer = present(
      sale.body.data.rewards.find((r) => r.customer === 'ref'),
      "the referrer's reward",
    );
    assert.deepEqual([referrer.amount, referrer.amount_units], [5, 'EUR']);
    assert.deepEqual((await get(p, '/v1/program')).total_revenue_from_sales, { eur: '€50.00' });
    // A purchase that names its currency keeps it.
    await post(p, '/v1/transactions', {
      key: 's2',
      amount: 7,
      amount_units: 'gbp',
      action: 'sale',
      customer: { id: 'buyer' },
    });
    const revenue = (await get(p, '/v1/customers/ref/stats')).referrals.revenue;
    assert.deepEqual(
      [...revenue].sort((a: { currency: string }, b: { currency: string }) =>
        a.currency.localeCompare(b.currency),
      ),
      [
        { currency: 'EUR', amount: 50 },
        { currency: 'GBP', amount: 7 },
      ],
    );
  });
});
