import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CommissionSettings,
  computeCommissions,
  defaultCommissionSettings,
  matchProductCommission,
  type Sale,
} from './commissions.ts';
import { toMicros } from './money.ts';

const at = '2026-03-10T12:00:00.000000Z';
const sale = (overrides: Partial<Sale> = {}): Sale => ({
  amountMicros: toMicros(99.99),
  productId: null,
  productType: null,
  rewardable: true,
  rewarded: false,
  at,
  customerSince: '2026-01-10T12:00:00.000000Z',
  previousSales: 0,
  hasParent: false,
  ...overrides,
});
const settings = (overrides: Partial<CommissionSettings> = {}): CommissionSettings => ({
  ...defaultCommissionSettings,
  commission: { type: 'percent', value: 30, duration: 'lifetime', duration_value: null },
  ...overrides,
});

describe('computeCommissions', () => {
  const cases: [
    string,
    CommissionSettings,
    Sale,
    { role: string; amountMicros: number; status: string }[],
  ][] = [
    [
      '30 % of 99.99 is exactly 29.997',
      settings(),
      sale(),
      [{ role: 'commission', amountMicros: 29_997_000, status: 'ok' }],
    ],
    [
      'a fixed commission ignores the amount',
      settings({ commission: { type: 'fixed', value: 12.5, duration: 'lifetime', duration_value: null } }),
      sale(),
      [{ role: 'commission', amountMicros: 12_500_000, status: 'ok' }],
    ],
    ['rewardable: false earns nothing', settings(), sale({ rewardable: false }), []],
    [
      'rewarded: true is recorded as paid',
      settings(),
      sale({ rewarded: true }),
      [{ role: 'commission', amountMicros: 29_997_000, status: 'paid' }],
    ],
    [
      'a hold period puts it in review',
      settings({ commission_hold_days: 30 }),
      sale(),
      [{ role: 'commission', amountMicros: 29_997_000, status: 'review_period' }],
    ],
    [
      'times: the first N sales only (within)',
      settings({ commission: { type: 'percent', value: 10, duration: 'times', duration_value: 2 } }),
      sale({ amountMicros: toMicros(100), previousSales: 1 }),
      [{ role: 'commission', amountMicros: 10_000_000, status: 'ok' }],
    ],
    [
      'times: the first N sales only (past)',
      settings({ commission: { type: 'percent', value: 10, duration: 'times', duration_value: 2 } }),
      sale({ previousSales: 2 }),
      [],
    ],
    [
      'days: within the window from signup',
      settings({ commission: { type: 'percent', value: 10, duration: 'days', duration_value: 60 } }),
      sale({ amountMicros: toMicros(100) }),
      [{ role: 'commission', amountMicros: 10_000_000, status: 'ok' }],
    ],
    [
      'days: past the window',
      settings({ commission: { type: 'percent', value: 10, duration: 'days', duration_value: 30 } }),
      sale(),
      [],
    ],
    [
      'months: within',
      settings({ commission: { type: 'percent', value: 10, duration: 'months', duration_value: 3 } }),
      sale({ amountMicros: toMicros(100) }),
      [{ role: 'commission', amountMicros: 10_000_000, status: 'ok' }],
    ],
    [
      'months: past',
      settings({ commission: { type: 'percent', value: 10, duration: 'months', duration_value: 1 } }),
      sale(),
      [],
    ],
    [
      'years: within',
      settings({ commission: { type: 'fixed', value: 5, duration: 'years', duration_value: 1 } }),
      sale(),
      [{ role: 'commission', amountMicros: 5_000_000, status: 'ok' }],
    ],
    [
      'a product override wins over the default',
      settings({ product_commissions: [{ product_type: 'ebook', type: 'percent', value: 50 }] }),
      sale({ amountMicros: toMicros(10), productType: 'ebook' }),
      [{ role: 'commission', amountMicros: 5_000_000, status: 'ok' }],
    ],
    [
      'tier two: the parent earns a second entry',
      settings({ tier2_commission: { type: 'percent', value: 5 } }),
      sale({ amountMicros: toMicros(200), hasParent: true }),
      [
        { role: 'commission', amountMicros: 60_000_000, status: 'ok' },
        { role: 'tier2', amountMicros: 10_000_000, status: 'ok' },
      ],
    ],
    [
      'tier two needs a parent',
      settings({ tier2_commission: { type: 'fixed', value: 1 } }),
      sale({ amountMicros: toMicros(200) }),
      [{ role: 'commission', amountMicros: 60_000_000, status: 'ok' }],
    ],
  ];
  for (const [name, given, input, expected] of cases) {
    test(name, () => {
      const got = computeCommissions(given, input).map(({ role, amountMicros, status }) => ({
        role,
        amountMicros,
        status,
      }));
      assert.deepEqual(got, expected);
    });
  }

  test('a hold sets when the reward becomes available', () => {
    const [reward] = computeCommissions(settings({ commission_hold_days: 14 }), sale());
    assert.equal(reward?.availableAt, '2026-03-24T12:00:00.000000Z');
  });
});

describe('matchProductCommission', () => {
  const rules = [
    { product_type: 'book', type: 'percent' as const, value: 1 },
    { product_id: 'p1', type: 'percent' as const, value: 2 },
    { product_id: 'p1', product_type: 'book', type: 'percent' as const, value: 3 },
  ];
  const cases: [string | null, string | null, number | undefined][] = [
    ['p1', 'book', 3],
    ['p1', 'music', 2],
    ['p2', 'book', 1],
    ['p2', 'music', undefined],
    [null, null, undefined],
  ];
  for (const [id, type, value] of cases) {
    test(`product ${id}/${type} → ${value ?? 'default'}`, () => {
      assert.equal(matchProductCommission(rules, id, type)?.value, value);
    });
  }
});
