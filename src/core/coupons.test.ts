import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  attributedPartner,
  type CouponSettings,
  couponSettingsProblems,
  type RedeemableCode,
  type RedemptionOrder,
  redemptionRefusal,
} from './coupons.ts';
import { renderFieldErrors } from './messages.ts';

const settings = (overrides: Partial<CouponSettings> = {}): CouponSettings => ({
  discountType: 'percent',
  discountMicros: 10_000_000n,
  durationType: 'once',
  durationValue: null,
  dateStatus: false,
  dateValue: null,
  timesStatus: false,
  timesValue: null,
  ...overrides,
});

describe('couponSettingsProblems', () => {
  const cases: [string, Partial<CouponSettings>, Record<string, string[]>][] = [
    ['a valid percent coupon', {}, {}],
    ['100 percent', { discountMicros: 100_000_000n }, {}],
    ['a percent just above 0', { discountMicros: 1n }, {}],
    [
      'percent 0',
      { discountMicros: 0n },
      { coupon_discount_amount: ['The coupon discount amount field must be greater than 0.'] },
    ],
    [
      'percent above 100',
      { discountMicros: 100_000_001n },
      { coupon_discount_amount: ['The coupon discount amount field must not be greater than 100.'] },
    ],
    ['static 5', { discountType: 'static', discountMicros: 5_000_000n }, {}],
    [
      'static 5.5',
      { discountType: 'static', discountMicros: 5_500_000n },
      { coupon_discount_amount: ['The coupon discount amount field must be an integer.'] },
    ],
    [
      'static 0',
      { discountType: 'static', discountMicros: 0n },
      { coupon_discount_amount: ['The coupon discount amount field must be at least 1.'] },
    ],
    ['months with a value', { durationType: 'months', durationValue: 3 }, {}],
    [
      'hours without a value',
      { durationType: 'hours' },
      {
        coupon_duration_value: [
          'The coupon duration value field is required when coupon duration type is hours.',
        ],
      },
    ],
    [
      'lifetime with a value',
      { durationType: 'lifetime', durationValue: 2 },
      {
        coupon_duration_value: [
          'The coupon duration value field is prohibited when coupon duration type is lifetime.',
        ],
      },
    ],
    [
      'date on without a date',
      { dateStatus: true },
      {
        redemption_specific_date_value: [
          'The redemption specific date value field is required when redemption specific date status is on.',
        ],
      },
    ],
    ['date off without a date', { dateStatus: false }, {}],
    [
      'times on without a value',
      { timesStatus: true },
      {
        redemption_times_value: [
          'The redemption times value field is required when redemption times status is on.',
        ],
      },
    ],
  ];
  for (const [name, overrides, expected] of cases) {
    test(name, () =>
      assert.deepEqual(renderFieldErrors(couponSettingsProblems(settings(overrides))), expected),
    );
  }
});

const code = (overrides: Partial<RedeemableCode> = {}, coupon: Partial<RedeemableCode['coupon']> = {}) => ({
  coupon: { active: true, deleted: false, lastDay: null, limit: null, timesRedeemed: 0, ...coupon },
  lastDay: null,
  limit: null,
  timesRedeemed: 0,
  firstTimeOrder: false,
  minimumOrder: null,
  partnerIds: null,
  customerIds: null,
  ...overrides,
});

const order = (overrides: Partial<RedemptionOrder> = {}): RedemptionOrder => ({
  amountMicros: 50_000_000n,
  salesBefore: 0,
  partnerId: 7,
  customerId: 9,
  ...overrides,
});

describe('redemptionRefusal', () => {
  const today = '2026-03-10';
  const cases: [string, RedeemableCode, RedemptionOrder | undefined, string | undefined][] = [
    ['a plain code', code(), undefined, undefined],
    ['a deleted coupon', code({}, { deleted: true, active: false }), undefined, 'coupon_deleted'],
    ['an inactive coupon', code({}, { active: false }), undefined, 'coupon_inactive'],
    ['the coupon’s last day is today', code({}, { lastDay: '2026-03-10' }), undefined, undefined],
    ['the coupon’s last day has passed', code({}, { lastDay: '2026-03-09' }), undefined, 'coupon_expired'],
    ['the coupon’s limit is reached', code({}, { limit: 2, timesRedeemed: 2 }), undefined, 'coupon_limit'],
    ['the coupon has one left', code({}, { limit: 2, timesRedeemed: 1 }), undefined, undefined],
    ['the code’s last day has passed', code({ lastDay: '2026-03-01' }), undefined, 'code_expired'],
    ['the code’s limit is reached', code({ limit: 10, timesRedeemed: 10 }), undefined, 'code_limit'],
    ['the code has one left', code({ limit: 10, timesRedeemed: 9 }), undefined, undefined],
    ['first order only, without an order', code({ firstTimeOrder: true }), undefined, undefined],
    ['first order only, a first order', code({ firstTimeOrder: true }), order(), undefined],
    [
      'first order only, a second order',
      code({ firstTimeOrder: true }),
      order({ salesBefore: 1 }),
      'first_time_order',
    ],
    ['minimum 50, order 50', code({ minimumOrder: 50 }), order(), undefined],
    [
      'minimum 50, order 49.99',
      code({ minimumOrder: 50 }),
      order({ amountMicros: 49_990_000n }),
      'minimum_order',
    ],
    ['limited to the order’s partner', code({ partnerIds: [7, 8] }), order(), undefined],
    ['limited to other partners', code({ partnerIds: [8] }), order(), 'partner'],
    [
      'limited to partners, an order without one',
      code({ partnerIds: [8] }),
      order({ partnerId: null }),
      'partner',
    ],
    ['limited to the buyer', code({ customerIds: [9] }), order(), undefined],
    ['limited to other customers', code({ customerIds: [1] }), order(), 'customer'],
    [
      'the coupon is judged before the code',
      code({ limit: 1, timesRedeemed: 1 }, { active: false }),
      undefined,
      'coupon_inactive',
    ],
  ];
  for (const [name, given, forOrder, expected] of cases) {
    test(name, () => assert.equal(redemptionRefusal(given, today, forOrder)?.reason, expected));
  }
  test('a refusal says why in words', () => {
    assert.equal(
      redemptionRefusal(code({ limit: 10, timesRedeemed: 10 }), today)?.message,
      'The promotion code has reached its redemption limit of 10.',
    );
  });
});

describe('attributedPartner', () => {
  test('exactly one partner is attributed; none or several are not', () => {
    assert.equal(attributedPartner({ partnerIds: [4] }), 4);
    assert.equal(attributedPartner({ partnerIds: [4, 5] }), null);
    assert.equal(attributedPartner({ partnerIds: null }), null);
  });
});
