import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram } from '../../../test/harness.ts';

/**
 * Balance credits at the money rule's boundaries: the credit `amount` is refused with 422 when it
 * cannot be kept exactly, and a balance beyond int64 micro-units is compared and taken exactly.
 */

const LARGEST = '999999999999.999999';

describeEachDatabase('customer balance: the money rule', (server) => {
  const post = <const P extends string>(p: TestProgram<'referral'>, path: P, body: unknown) =>
    server().request('POST', path, { token: p.token, body });
  const credit = (p: TestProgram<'referral'>, amount: unknown) =>
    post(p, '/v1/customers/ref/balance/credit', { amount, amount_units: 'USD', is_currency: true });
  const balanceOf = async (p: TestProgram<'referral'>) => {
    const res = await server().request('GET', '/v1/customers/ref/balance', { token: p.token });
    assert.equal(res.status, 200, res.text);
    return res.body.data.balance.currency;
  };
  const usd = (amount: number) => [{ amount, amount_units: 'USD', is_currency: true }];

  /** A referrer `ref` that earns 100 % of each purchase of `buyer`: 10 purchases of the largest amount. */
  async function withLargestBalance() {
    const p = await server().newProgram('referral');
    const settings = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: {
        program_settings: {
          referrer_reward: {
            type: 'percent',
            value: 100,
            is_currency: true,
            amount_units: 'USD',
            trigger: 'every_purchase',
            limit: null,
          },
          referred_reward: null,
        },
      },
    });
    assert.equal(settings.status, 200, settings.text);
    await post(p, '/v1/customers', { id: 'ref', email: 'ref@example.com' });
    await post(p, '/v1/customers', {
      id: 'buyer',
      email: 'buyer@example.com',
      referring_customer: { id: 'ref' },
    });
    for (let i = 0; i < 10; i++) {
      const res = await post(p, '/v1/transactions', {
        amount: LARGEST,
        amount_units: 'USD',
        action: 'sale',
        customer: { id: 'buyer' },
      });
      assert.equal(res.status, 200, res.text);
    }
    return p;
  }

  test('a balance beyond int64 micro-units is kept, refused credits leave it alone, credits take it exactly to zero', async () => {
    const p = await withLargestBalance();
    // 10 × (10^18 − 1) micro-units: past int64's 9.2 × 10^18.
    assert.deepEqual(await balanceOf(p), usd(Number('9999999999999.99999')));

    const refused: [unknown, string][] = [
      [10.1234567, 'The amount field must not have more than 6 decimal places.'],
      ['0.0000001', 'The amount field must not have more than 6 decimal places.'],
      [1e12, 'The amount field must be less than 1000000000000.'],
      [1e300, 'The amount field must be less than 1000000000000.'],
      ['abc', 'The amount field must be a number.'],
      [0, 'The amount field must be greater than 0.'],
      [-1, 'The amount field must be greater than 0.'],
    ];
    for (const [amount, message] of refused) {
      const res = await credit(p, amount);
      assert.equal(res.status, 422, `${String(amount)}: ${res.text}`);
      assert.deepEqual(res.error.errors.amount, [message], String(amount));
    }
    assert.deepEqual(await balanceOf(p), usd(Number('9999999999999.99999')));

    const first = await credit(p, LARGEST);
    assert.deepEqual(first.body, { status: 1 }, first.text);
    assert.deepEqual(await balanceOf(p), usd(Number('8999999999999.999991')));
    for (let i = 0; i < 8; i++) assert.equal((await credit(p, LARGEST)).status, 200);
    assert.deepEqual(await balanceOf(p), usd(Number(LARGEST)));

    // Left: 999999999999.999999. Take 0.000002; then the largest amount is 0.000002 too much,
    // which a comparison of doubles (both read 10^12) would let through.
    assert.equal((await credit(p, '0.000002')).status, 200);
    const over = await credit(p, LARGEST);
    assert.equal(over.status, 422, over.text);
    assert.deepEqual(over.error.errors.amount, [
      `The amount must not be greater than the balance (${Number('999999999999.999997')} USD).`,
    ]);
    const last = await credit(p, '999999999999.999997');
    assert.equal(last.status, 200, last.text);
    assert.deepEqual(await balanceOf(p), usd(0));
    const empty = await credit(p, '0.000001');
    assert.equal(empty.status, 422, empty.text);
    assert.deepEqual(empty.error.errors.amount, ['The amount must not be greater than the balance (0 USD).']);
  });

  test('a credit one micro-unit over the balance is refused; exact decimals are taken', async () => {
    const p = await server().newProgram('referral');
    await server().request('PUT', '/v1/program', {
      token: p.token,
      body: {
        program_settings: {
          referrer_reward: {
            type: 'fixed',
            value: 10.123456,
            is_currency: true,
            amount_units: 'USD',
            trigger: 'every_purchase',
            limit: null,
          },
          referred_reward: null,
        },
      },
    });
    await post(p, '/v1/customers', { id: 'ref', email: 'ref@example.com' });
    await post(p, '/v1/customers', {
      id: 'buyer',
      email: 'buyer@example.com',
      referring_customer: { id: 'ref' },
    });
    const sale = await post(p, '/v1/transactions', { amount: 1, action: 'sale', customer: { id: 'buyer' } });
    assert.equal(sale.status, 200, sale.text);
    assert.deepEqual(await balanceOf(p), usd(10.123456));
    assert.equal((await credit(p, '10.123457')).status, 422);
    assert.equal((await credit(p, '10.50')).status, 422);
    assert.equal((await credit(p, 0.123456)).status, 200);
    assert.deepEqual(await balanceOf(p), usd(10));
    assert.equal((await credit(p, '10.000000')).status, 200);
    assert.deepEqual(await balanceOf(p), usd(0));
  });
});
