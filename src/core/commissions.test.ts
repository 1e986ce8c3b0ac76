import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CommissionSettings,
  computeCommissions,
  defaultCommissionSettings,
  lacksDurationCount,
  matchProductCommission,
  type Sale,
} from './commissions.ts';

const at = '2026-03-10T12:00:00.000000Z';
const sale = (overrides: Partial<Sale> = {}): Sale => ({
  amountMicros: 99_990_000n,
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
    { role: string; amountMicros: bigint; status: string }[],
  ][] = [
    [
      '30 % of 99.99 is exactly 29.997',
      settings(),
      sale(),
      [{ role: 'commission', amountMicros: 29_997_000n, status: 'ok' }],
    ],
    [
      'a fixed commission ignores the amount',
      settings({ commission: { type: 'fixed', value: 12.5, duration: 'lifetime', duration_value: null } }),
      sale(),
      [{ role: 'commission', amountMicros: 12_500_000n, status: 'ok' }],
    ],
    ['rewardable: false earns nothing', settings(), sale({ rewardable: false }), []],
    [
      'rewarded: true is recorded as paid',
      settings(),
      sale({ rewarded: true }),
      [{ role: 'commission', amountMicros: 29_997_000n, status: 'paid' }],
    ],
    [
      'a hold period puts it in review',
      settings({ commission_hold_days: 30 }),
      sale(),
      [{ role: 'commission', amountMicros: 29_997_000n, status: 'review_period' }],
    ],
    [
      'times: the first N sales only (within)',
      settings({ commission: { type: 'percent', value: 10, duration: 'times', duration_value: 2 } }),
      sale({ amountMicros: 100_000_000n, previousSales: 1 }),
      [{ role: 'commission', amountMicros: 10_000_000n, status: 'ok' }],
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
      sale({ amountMicros: 100_000_000n }),
      [{ role: 'commission', amountMicros: 10_000_000n, status: 'ok' }],
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
      sale({ amountMicros: 100_000_000n }),
      [{ role: 'commission', amountMicros: 10_000_000n, status: 'ok' }],
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
      [{ role: 'commission', amountMicros: 5_000_000n, status: 'ok' }],
    ],
    [
      'a product override wins over the default',
      settings({ product_commissions: [{ product_type: 'ebook', type: 'percent', value: 50 }] }),
      sale({ amountMicros: 10_000_000n, productType: 'ebook' }),
      [{ role: 'commission', amountMicros: 5_000_000n, status: 'ok' }],
    ],
    [
      'tier two: the parent earns a second entry',
      settings({ tier2_commission: { type: 'percent', value: 5 } }),
      sale({ amountMicros: 200_000_000n, hasParent: true }),
      [
        { role: 'commission', amountMicros: 60_000_000n, status: 'ok' },
        { role: 'tier2', amountMicros: 10_000_000n, status: 'ok' },
      ],
    ],
    [
      'tier two needs a parent',
      settings({ tier2_commission: { type: 'fixed', value: 1 } }),
      sale({ amountMicros: 200_000_000n }),
      [{ role: 'commission', amountMicros: 60_000_000n, status: 'ok' }],
    ],
    [
      'the largest sale earns an exact percentage, beyond a double',
      settings({ tier2_commission: { type: 'percent', value: 2.5 } }),
      sale({ amountMicros: 999_999_999_999_999_999n, hasParent: true }),
      [
        { role: 'commission', amountMicros: 300_000_000_000_000_000n, status: 'ok' },
        { role: 'tier2', amountMicros: 25_000_000_000_000_000n, status: 'ok' },
      ],
    ],
    [
      'a percentage of a sale near 10^12 rounds half up to a micro-unit',
      settings({ commission: { type: 'percent', value: 12.5, duration: 'lifetime', duration_value: null } }),
      sale({ amountMicros: 999_999_999_999_999_996n }), // 12.5 % is …999.5 micro-units
      [{ role: 'commission', amountMicros: 125_000_000_000_000_000n, status: 'ok' }],
    ],
    [
      'a fixed commission near the limit is exact',
      settings({
        commission: { type: 'fixed', value: 999999999999.9999, duration: 'lifetime', duration_value: null },
      }),
      sale({ amountMicros: 1n }),
      [{ role: 'commission', amountMicros: 999_999_999_999_999_900n, status: 'ok' }],
    ],
    [
      'a percentage that rounds to nothing earns nothing',
      settings({ commission: { type: 'percent', value: 1, duration: 'lifetime', duration_value: null } }),
      sale({ amountMicros: 49n }),
      [],
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

  test('a fixed commission finer than a micro-unit is refused, not rounded', () => {
    const fine = settings({
      commission: { type: 'fixed', value: 0.0000001, duration: 'lifetime', duration_value: null },
    });
    assert.throws(() => computeCommissions(fine, sale()), RangeError);
  });

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

describe('lacksDurationCount: a limited commission must say how many', () => {
  const cases: [commission: unknown, lacks: boolean][] = [
    [{ type: 'percent', value: 30 }, false],
    [{ type: 'percent', value: 30, duration: 'lifetime' }, false],
    [{ type: 'percent', value: 30, duration: 'lifetime', duration_value: null }, false],
    [{ type: 'percent', value: 30, duration: 'times', duration_value: 3 }, false],
    [{ type: 'percent', value: 30, duration: 'times' }, true],
    [{ type: 'percent', value: 30, duration: 'days', duration_value: null }, true],
    [{ type: 'fixed', value: 5, duration: 'months' }, true],
    [{ type: 'fixed', value: 5, duration: 'years' }, true],
    [null, false],
    [undefined, false],
  ];
  for (const [commission, lacks] of cases)
    test(JSON.stringify(commission) ?? 'undefined', () =>
      assert.equal(lacksDurationCount(commission), lacks),
    );
});
