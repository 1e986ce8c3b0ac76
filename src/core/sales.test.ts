import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CommissionSettings, defaultCommissionSettings } from './commissions.ts';
import { present } from './present.ts';
import { defaultRewardSettings, type RewardSettings } from './rewards.ts';
import {
  type AffiliateSaleHistory,
  affiliateSaleCounts,
  affiliateSaleFigures,
  decideAffiliateSale,
  decideReferralSale,
  type FigureChange,
  orderedFigures,
  type ReferralSaleHistory,
  referralSaleFigures,
  type SaleInput,
  settledCommissionFigures,
} from './sales.ts';

const at = '2026-03-10T12:00:00.000000Z';
const sale = (overrides: Partial<SaleInput> = {}): SaleInput => ({
  amountMicros: 99_990_000n,
  currency: null,
  rewardable: true,
  rewarded: false,
  productId: null,
  productType: null,
  at,
  ...overrides,
});
const commissions = (overrides: Partial<CommissionSettings> = {}): CommissionSettings => ({
  ...defaultCommissionSettings,
  commission: { type: 'percent', value: 30, duration: 'lifetime', duration_value: null },
  ...overrides,
});
const affiliateHistory = (overrides: Partial<AffiliateSaleHistory> = {}): AffiliateSaleHistory => ({
  buyer: { id: 7, since: '2026-01-01T00:00:00.000000Z', salesBefore: 0 },
  partner: { id: 3, archived: false, parentId: null },
  programCurrency: 'usd',
  ...overrides,
});

/** A decision's entity figures as `kind:id:metric=value` lines, easy to compare in a table. */
const lines = (figures: readonly FigureChange[]) =>
  figures.map((f) => `${f.kind}:${f.id}:${f.metric}=${f.value}`);

describe('decideAffiliateSale', () => {
  const cases: [
    string,
    CommissionSettings,
    AffiliateSaleHistory,
    SaleInput,
    string[],
    Record<string, bigint>,
  ][] = [
    [
      "a first sale: the partner's commission, revenue, a new paying account",
      commissions(),
      affiliateHistory(),
      sale(),
      [
        'customer:7:sales_count=1',
        'partner:3:commission_not_paid:usd=29997000',
        'partner:3:paid_accounts=1',
        'partner:3:revenue:usd=99990000',
        'partner:3:sales_count=1',
      ],
      { sales: 1n, 'revenue:usd': 99_990_000n },
    ],
    [
      'a second sale adds no paying account; a sent currency wins over the program currency',
      commissions(),
      affiliateHistory({ buyer: { id: 7, since: at, salesBefore: 1 } }),
      sale({ currency: 'EUR' }),
      [
        'customer:7:sales_count=1',
        'partner:3:commission_not_paid:eur=29997000',
        'partner:3:revenue:eur=99990000',
        'partner:3:sales_count=1',
      ],
      { sales: 1n, 'revenue:eur': 99_990_000n },
    ],
    [
      'an archived partner earns nothing but the sale still counts for it',
      commissions(),
      affiliateHistory({ partner: { id: 3, archived: true, parentId: null } }),
      sale(),
      [
        'customer:7:sales_count=1',
        'partner:3:paid_accounts=1',
        'partner:3:revenue:usd=99990000',
        'partner:3:sales_count=1',
      ],
      { sales: 1n, 'revenue:usd': 99_990_000n },
    ],
    [
      'a buyer without a partner moves only its own and the program figures',
      commissions(),
      affiliateHistory({ partner: null }),
      sale(),
      ['customer:7:sales_count=1'],
      { sales: 1n, 'revenue:usd': 99_990_000n },
    ],
    [
      'tier two: the parent partner earns its own commission, ordered by partner id',
      commissions({ tier2_commission: { type: 'percent', value: 10 } }),
      affiliateHistory({ partner: { id: 9, archived: false, parentId: 2 } }),
      sale({ amountMicros: 100_000_000n }),
      [
        'customer:7:sales_count=1',
        'partner:2:commission_not_paid:usd=10000000',
        'partner:9:commission_not_paid:usd=30000000',
        'partner:9:paid_accounts=1',
        'partner:9:revenue:usd=100000000',
        'partner:9:sales_count=1',
      ],
      { sales: 1n, 'revenue:usd': 100_000_000n },
    ],
    [
      'a hold puts the commission in pending',
      commissions({ commission_hold_days: 30 }),
      affiliateHistory(),
      sale({ amountMicros: 10_000_000n }),
      [
        'customer:7:sales_count=1',
        'partner:3:commission_pending:usd=3000000',
        'partner:3:paid_accounts=1',
        'partner:3:revenue:usd=10000000',
        'partner:3:sales_count=1',
      ],
      { sales: 1n, 'revenue:usd': 10_000_000n },
    ],
  ];
  for (const [name, settings, history, input, entities, program] of cases) {
    test(name, () => {
      const decision = decideAffiliateSale(settings, history, input);
      assert.deepEqual(lines(decision.figures.entities), entities);
      assert.deepEqual(decision.figures.program, program);
    });
  }

  test('taking a sale back undoes exactly what adding it did', () => {
    const decision = decideAffiliateSale(commissions(), affiliateHistory(), sale());
    const facts = {
      customerId: decision.customerId,
      partnerId: decision.partnerId,
      amountMicros: decision.amountMicros,
      currency: present(decision.currency, "the sale's currency"),
      rewards: decision.rewards,
    };
    const back = affiliateSaleFigures(facts, -1n, 1);
    assert.deepEqual(
      lines(back.entities),
      lines(decision.figures.entities.map((f) => ({ ...f, value: -f.value }))),
    );
    assert.deepEqual(back.program, { sales: -1n, 'revenue:usd': -99_990_000n });
  });
});

const referralHistory = (overrides: Partial<ReferralSaleHistory['buyer']> = {}): ReferralSaleHistory => ({
  buyer: {
    id: 5,
    referrerId: 4,
    purchasesBefore: 0,
    rewardsBefore: { referrer: 0, referred: 0 },
    ...overrides,
  },
  programCurrency: 'eur',
});

describe('decideReferralSale', () => {
  const cases: [string, RewardSettings, ReferralSaleHistory, SaleInput, string[], Record<string, bigint>][] =
    [
      [
        'give 10, get 10 on a first purchase: both balances, the counts, the referrer figures',
        defaultRewardSettings,
        referralHistory(),
        sale({ currency: 'USD' }),
        [
          'customer:4:balance:usd=10000000',
          'customer:4:paid_accounts=1',
          'customer:4:revenue:usd=99990000',
          'customer:4:sales_count=1',
          'customer:5:balance:usd=10000000',
          'customer:5:purchases=1',
          'customer:5:rewards:referred=1',
          'customer:5:rewards:referrer=1',
        ],
        { sales: 1n, 'revenue:usd': 99_990_000n },
      ],
      [
        'a second purchase earns nothing under first_purchase; without a currency it counts in the program’s',
        defaultRewardSettings,
        referralHistory({ purchasesBefore: 1, rewardsBefore: { referrer: 1, referred: 1 } }),
        sale(),
        ['customer:4:revenue:eur=99990000', 'customer:4:sales_count=1', 'customer:5:purchases=1'],
        { sales: 1n, 'revenue:eur': 99_990_000n },
      ],
      [
        'rewarded: true records paid rewards that no balance counts',
        defaultRewardSettings,
        referralHistory(),
        sale({ rewarded: true, currency: 'USD' }),
        [
          'customer:4:paid_accounts=1',
          'customer:4:revenue:usd=99990000',
          'customer:4:sales_count=1',
          'customer:5:purchases=1',
          'customer:5:rewards:referred=1',
          'customer:5:rewards:referrer=1',
        ],
        { sales: 1n, 'revenue:usd': 99_990_000n },
      ],
    ];
  for (const [name, settings, history, input, entities, program] of cases) {
    test(name, () => {
      const decision = decideReferralSale(settings, history, input);
      assert.deepEqual(lines(decision.figures.entities), entities);
      assert.deepEqual(decision.figures.program, program);
    });
  }

  test('taking a first purchase back stops the paying account', () => {
    const decision = decideReferralSale(defaultRewardSettings, referralHistory(), sale({ currency: 'USD' }));
    const back = referralSaleFigures(
      {
        buyerId: 5,
        referrerId: 4,
        amountMicros: decision.amountMicros,
        currency: 'USD',
        rewards: decision.rewards,
      },
      -1n,
      1,
    );
    assert.ok(lines(back.entities).includes('customer:4:paid_accounts=-1'));
  });
});

describe('orderedFigures', () => {
  test('adds up one figure, drops zeros, orders by kind, id and metric', () => {
    assert.deepEqual(
      lines(
        orderedFigures([
          { kind: 'partner', id: 2, metric: 'b', value: 1n },
          { kind: 'customer', id: 9, metric: 'a', value: 0n },
          { kind: 'partner', id: 10, metric: 'a', value: 1n },
          { kind: 'partner', id: 2, metric: 'b', value: 2n },
          { kind: 'link', id: 1, metric: 'a', value: -1n },
        ]),
      ),
      ['link:1:a=-1', 'partner:2:b=3', 'partner:10:a=1'],
    );
  });
});

describe('settledCommissionFigures', () => {
  test('moves each due commission from pending to not paid, per currency', () => {
    assert.deepEqual(
      lines(
        settledCommissionFigures(3, [
          { amountMicros: 5_000_000n, units: 'USD' },
          { amountMicros: 2_500_000n, units: 'USD' },
          { amountMicros: 1n, units: 'EUR' },
        ]),
      ),
      [
        'partner:3:commission_not_paid:eur=1',
        'partner:3:commission_not_paid:usd=7500000',
        'partner:3:commission_pending:eur=-1',
        'partner:3:commission_pending:usd=-7500000',
      ],
    );
  });
});

describe('affiliateSaleCounts', () => {
  const rule = (duration: CommissionSettings['commission']['duration'], value: number | null) => ({
    ...defaultCommissionSettings,
    commission: { type: 'percent' as const, value: 20, duration, duration_value: value },
  });
  const cases: [string, CommissionSettings, number, boolean][] = [
    ['a first sale counts (paying accounts)', rule('lifetime', null), 0, true],
    ['a later sale of a lifetime commission does not', rule('lifetime', null), 1, false],
    ['a sale within a 3-sale commission counts', rule('times', 3), 2, true],
    ['the sale after the third does not', rule('times', 3), 3, false],
    ['a months duration does not count sales', rule('months', 12), 5, false],
  ];
  for (const [name, settings, salesBefore, expected] of cases)
    test(name, () => assert.equal(affiliateSaleCounts(settings, salesBefore), expected));
});
