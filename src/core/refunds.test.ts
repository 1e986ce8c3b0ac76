import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideRefund, type RefundedReward, type RefundedSale } from './sales.ts';

const reward = (overrides: Partial<RefundedReward> = {}): RefundedReward => ({
  id: 1,
  role: 'commission',
  status: 'ok',
  partnerId: 7,
  customerId: null,
  amountMicros: 29_997_000n,
  originalMicros: 29_997_000n,
  units: 'USD',
  isCurrency: true,
  inPayout: false,
  ...overrides,
});
const sale = (overrides: Partial<RefundedSale> = {}): RefundedSale => ({
  type: 'affiliate',
  customerId: 3,
  partnerId: 7,
  referringCustomerId: null,
  amountMicros: 99_990_000n,
  currency: 'USD',
  refundedBefore: 0n,
  archived: false,
  rewards: [reward()],
  ...overrides,
});

describe('decideRefund', () => {
  test('refusals: refunded in full already, more than what is left, nothing', () => {
    assert.equal(decideRefund(sale({ refundedBefore: 99_990_000n }), 1n), 'refunded');
    assert.equal(decideRefund(sale({ refundedBefore: 90_000_000n }), 9_990_001n), 'too-much');
    assert.equal(decideRefund(sale(), 0n), 'not-positive');
  });

  // [refunded before, refund, reward status, in payout] → [new amount or 'voided', clawback or null]
  const table: [bigint, bigint, string, boolean, bigint | 'voided' | 'unchanged', bigint | null][] = [
    [0n, 33_330_000n, 'ok', false, 19_998_000n, null],
    [33_330_000n, 33_330_000n, 'ok', false, 9_999_000n, null],
    [0n, 99_990_000n, 'ok', false, 'voided', null],
    [0n, 99_990_000n, 'review_period', false, 'voided', null],
    [0n, 33_330_000n, 'paid', false, 'unchanged', -9_999_000n],
    [0n, 33_330_000n, 'ok', true, 'unchanged', -9_999_000n],
    [0n, 99_990_000n, 'paid', false, 'unchanged', -29_997_000n],
    [0n, 33_330_000n, 'denied', false, 'unchanged', null],
  ];
  for (const [before, refund, status, inPayout, amount, clawback] of table) {
    test(`${status}${inPayout ? ' in a payout' : ''}: refund ${refund} after ${before}`, () => {
      const original = 29_997_000n;
      const current =
        before === 0n ? original : (original * (99_990_000n - before) + 49_995_000n) / 99_990_000n;
      const decision = decideRefund(
        sale({ refundedBefore: before, rewards: [reward({ status, inPayout, amountMicros: current })] }),
        refund,
      );
      assert.ok(typeof decision === 'object');
      assert.equal(decision.refundedAfter, before + refund);
      const update = decision.updates[0];
      if (amount === 'unchanged') assert.equal(update, undefined);
      else if (amount === 'voided') assert.equal(update?.status, 'voided');
      else assert.equal(update?.amountMicros, amount);
      assert.equal(decision.clawbacks[0]?.amountMicros ?? null, clawback);
    });
  }

  test('figures: revenue and the reward’s figure go down, never the sale counts', () => {
    const decision = decideRefund(sale(), 33_330_000n);
    assert.ok(typeof decision === 'object');
    assert.deepEqual(decision.figures.program, { 'revenue:usd': -33_330_000n });
    assert.deepEqual(
      decision.figures.entities.map((f) => [f.metric, f.value]),
      [
        ['commission_not_paid:usd', -9_999_000n],
        ['revenue:usd', -33_330_000n],
      ],
    );
    const archived = decideRefund(sale({ archived: true }), 33_330_000n);
    assert.ok(typeof archived === 'object');
    assert.deepEqual(archived.figures, { program: {}, entities: [] });
  });

  test('refer-a-friend: non-currency rewards only go with a full refund; paid ones stay', () => {
    const points = reward({
      id: 2,
      role: 'referrer',
      partnerId: null,
      customerId: 4,
      isCurrency: false,
      units: 'points',
      amountMicros: 5_000_000n,
      originalMicros: 5_000_000n,
    });
    const paid = reward({ id: 3, role: 'referred', partnerId: null, customerId: 3, status: 'paid' });
    const partial = decideRefund(
      sale({ type: 'referral', partnerId: null, referringCustomerId: 4, rewards: [points, paid] }),
      1_000_000n,
    );
    assert.ok(typeof partial === 'object');
    assert.deepEqual(partial.updates, []);
    assert.deepEqual(partial.clawbacks, []);
    const full = decideRefund(
      sale({ type: 'referral', partnerId: null, referringCustomerId: 4, rewards: [points, paid] }),
      99_990_000n,
    );
    assert.ok(typeof full === 'object');
    assert.deepEqual(
      full.updates.map((u) => [u.id, u.status]),
      [[2, 'voided']],
    );
  });
});
