import assert from 'node:assert/strict';
import { test } from 'node:test';
import { affiliateProgramWithBuyer } from '../../../test/factories.ts';
import {
  describeEachDatabase,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * The money rule at the HTTP boundary (contract §4.18): an amount is kept exactly as sent or
 * refused with 422 on `amount`, and sums stay exact far beyond a double and beyond int64.
 */

const LARGEST = '999999999999.999999';

const sell = (server: TestServer, p: TestProgram, key: string, amount: unknown) =>
  server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { key, amount, amount_units: 'usd', action: 'sale', customer: { key: 'ck' } },
  });

const partnerOf = async (server: TestServer, p: TestProgram, id: string) => {
  const res = await server.request('GET', `/v1/partners/${id}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
};

describeEachDatabase('transactions: the money rule', (server) => {
  test('amounts that cannot be kept exactly, or a negative sale, are 422 on amount and write nothing', async () => {
    const { p, partnerId } = await affiliateProgramWithBuyer(server());
    const refused: [unknown, string][] = [
      [1e13, 'The amount field must be less than 1000000000000.'],
      [1e12, 'The amount field must be less than 1000000000000.'],
      ['1000000000000', 'The amount field must be less than 1000000000000.'],
      [1e300, 'The amount field must be less than 1000000000000.'],
      ['abc', 'The amount field must be a number.'],
      ['0x10', 'The amount field must be a number.'],
      [true, 'The amount field must be a number.'],
      [10.1234567, 'The amount field must not have more than 6 decimal places.'],
      ['10.1234567', 'The amount field must not have more than 6 decimal places.'],
      [0.0000001, 'The amount field must not have more than 6 decimal places.'],
      [-5, 'The amount field must be at least 0.'],
      ['-0.01', 'The amount field must be at least 0.'],
    ];
    for (const [i, [amount, message]] of refused.entries()) {
      const res = await sell(server(), p, `bad-${i}`, amount);
      assert.equal(res.status, 422, `${String(amount)}: ${res.text}`);
      assert.deepEqual(res.error.errors.amount, [message], String(amount));
      const stored = await server().request('GET', `/v1/transactions/bad-${i}`, { token: p.token });
      assert.equal(stored.status, 404, `${String(amount)} was stored: ${stored.text}`);
    }
    const figures = await partnerOf(server(), p, partnerId);
    assert.equal(figures.referrals.sales_count, 0);
    assert.deepEqual(figures.referrals.revenue, []);
    assert.deepEqual(figures.commissions.not_paid, []);
    const events = await recordedEvents(server(), p);
    assert.equal(events.filter((e) => e.event.startsWith('transaction.')).length, 0);
  });

  test('commission and reward settings are refused when they could not be paid exactly', async () => {
    const affiliate = await server().newProgram('affiliate');
    const commission = await server().request('PUT', '/v1/program', {
      token: affiliate.token,
      body: { program_settings: { commission: { type: 'fixed', value: 0.1234567 } } },
    });
    assert.equal(commission.status, 422, commission.text);
    assert.deepEqual(commission.error.errors, {
      'program_settings.commission.value': [
        'The program settings.commission.value field must not have more than 6 decimal places.',
      ],
    });
    const referral = await server().newProgram('referral');
    const reward = await server().request('PUT', '/v1/program', {
      token: referral.token,
      body: {
        program_settings: {
          referrer_reward: {
            type: 'percent',
            value: 12.3456789,
            is_currency: true,
            amount_units: 'USD',
            trigger: 'every_purchase',
            limit: null,
          },
        },
      },
    });
    assert.equal(reward.status, 422, reward.text);
    assert.deepEqual(Object.keys(reward.error.errors), ['program_settings.referrer_reward.value']);
  });

  test('amounts come back as sent: 10.123456, "10.50", and the largest amount', async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    const cases: [unknown, number][] = [
      [10.123456, 10.123456],
      ['10.50', 10.5],
      [0.000001, 0.000001],
      ['0', 0],
      // The nearest JSON number to 999999999999.999999 is 10^12; the stored amount is exact.
      [LARGEST, Number(LARGEST)],
    ];
    for (const [i, [amount, expected]] of cases.entries()) {
      const res = await sell(server(), p, `ok-${i}`, amount);
      assert.equal(res.status, 200, `${String(amount)}: ${res.text}`);
      assert.equal(res.body.data.amount, expected, String(amount));
      const stored = await server().request('GET', `/v1/transactions/ok-${i}`, { token: p.token });
      assert.equal(stored.body.data.amount, expected, String(amount));
    }
  });

  test('sums stay exact beyond a double and beyond int64 micro-units', async () => {
    const { p, partnerId } = await affiliateProgramWithBuyer(server());
    // 99 × 999999999999.99 + 999999999999.999999 + 0.000001 = 99999999999999.01 exactly:
    // 10^20 micro-units, past int64, and a cent a double cannot hold at 10^14 (it would read .02).
    const amounts = [...Array.from({ length: 99 }, () => '999999999999.99'), LARGEST, '0.000001'];
    for (const [i, amount] of amounts.entries()) {
      const res = await sell(server(), p, `big-${i}`, amount);
      assert.equal(res.status, 200, res.text);
    }
    const partner = await partnerOf(server(), p, partnerId);
    assert.equal(partner.referrals.sales_count, amounts.length);
    assert.deepEqual(partner.referrals.revenue, [{ currency: 'USD', amount: Number('99999999999999.01') }]);
    // The default commission is 20 %: 99 × 199999999999.998 + 200000000000 (rounded half up
    // from 199999999999.9999998) + 0.0000002 → 0, i.e. 19999999999999.802.
    assert.deepEqual(partner.commissions.not_paid, [
      { currency: 'USD', amount: Number('19999999999999.802') },
    ]);

    const overview = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(overview.status, 200, overview.text);
    assert.deepEqual(overview.body.data.total_revenue_from_sales, { usd: '$99,999,999,999,999.01' });
    assert.equal(overview.body.data.total_sales, amounts.length);
  });

  test('refunds of the largest amount stay exact: what is left, a refund too many, the export', async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    assert.equal((await sell(server(), p, 'big', LARGEST)).status, 200);
    const refund = (amount: string) =>
      server().request('POST', '/v1/transactions/big/refund', { token: p.token, body: { amount } });
    // 999999999999.999998 in micro-units is beyond 2^53: read back inexactly, the last micro-unit
    // would be lost or the refund of it refused.
    assert.equal((await refund('999999999999.999998')).status, 200);
    assert.equal((await refund('0.000001')).status, 200);
    const tooMany = await refund('0.000001');
    assert.equal(tooMany.status, 422, tooMany.text);
    const file = await server().request('GET', '/v1/exports/transactions.csv', { token: p.token });
    assert.equal(file.status, 200, file.text);
    const [, row] = file.text.trim().split('\n');
    assert.match(row ?? '', /,999999999999\.999999,USD,999999999999\.999999,/);
    // Read on its own, without the sale's amount beside it, the refunded amount is exact too.
    const [alone] = await server()
      .deps.database.db.selectFrom('transactions')
      .select('refunded_amount')
      .where('program_id', '=', p.id)
      .where('key', '=', 'big')
      .execute();
    assert.equal(alone?.refunded_amount, 999999999999999999n);
  });
});
