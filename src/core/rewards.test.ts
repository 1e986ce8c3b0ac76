import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  calculateRewards,
  defaultRewardSettings,
  type Purchase,
  type RewardDraft,
  type RewardSetting,
  type RewardSettings,
  rewardSettingsOf,
} from './rewards.ts';

const usd10: RewardSetting = {
  type: 'fixed',
  value: 10,
  is_currency: true,
  amount_units: 'usd',
  trigger: 'every_purchase',
  limit: null,
};
const pct30: RewardSetting = { ...usd10, type: 'percent', value: 30, amount_units: 'EUR' };
const points: RewardSetting = { ...usd10, value: 100, is_currency: false, amount_units: 'points' };

const purchase = (overrides: Partial<Purchase> = {}): Purchase => ({
  amount: 99_990_000n,
  amountUnits: 'USD',
  rewardable: true,
  rewarded: false,
  previousPurchases: 0,
  previousRewards: { referrer: 0, referred: 0 },
  ...overrides,
});

type Expected = Pick<RewardDraft, 'role' | 'amount' | 'amountUnits' | 'isCurrency' | 'status'>;

const cases: [string, RewardSettings, Purchase, Expected[]][] = [
  ['no settings: no rewards', { referrer_reward: null, referred_reward: null }, purchase(), []],
  [
    'fixed currency on both sides',
    { referrer_reward: usd10, referred_reward: usd10 },
    purchase(),
    [
      { role: 'referrer', amount: 10_000_000n, amountUnits: 'USD', isCurrency: true, status: 'ok' },
      { role: 'referred', amount: 10_000_000n, amountUnits: 'USD', isCurrency: true, status: 'ok' },
    ],
  ],
  [
    'percent is exact: 30 % of 99.99 is 29.997, in the purchase currency',
    { referrer_reward: pct30, referred_reward: null },
    purchase(),
    [{ role: 'referrer', amount: 29_997_000n, amountUnits: 'USD', isCurrency: true, status: 'ok' }],
  ],
  [
    'percent without a purchase currency uses the setting units',
    { referrer_reward: pct30, referred_reward: null },
    purchase({ amountUnits: null }),
    [{ role: 'referrer', amount: 29_997_000n, amountUnits: 'EUR', isCurrency: true, status: 'ok' }],
  ],
  [
    'non-currency units keep their name',
    { referrer_reward: null, referred_reward: points },
    purchase(),
    [{ role: 'referred', amount: 100_000_000n, amountUnits: 'points', isCurrency: false, status: 'ok' }],
  ],
  [
    'first_purchase: only the first purchase earns',
    { referrer_reward: { ...usd10, trigger: 'first_purchase' }, referred_reward: usd10 },
    purchase({ previousPurchases: 1 }),
    [{ role: 'referred', amount: 10_000_000n, amountUnits: 'USD', isCurrency: true, status: 'ok' }],
  ],
  [
    'limit reached on one side only',
    { referrer_reward: { ...usd10, limit: 2 }, referred_reward: { ...usd10, limit: 3 } },
    purchase({ previousPurchases: 2, previousRewards: { referrer: 2, referred: 2 } }),
    [{ role: 'referred', amount: 10_000_000n, amountUnits: 'USD', isCurrency: true, status: 'ok' }],
  ],
  [
    'limit 0 never rewards',
    { referrer_reward: { ...usd10, limit: 0 }, referred_reward: null },
    purchase(),
    [],
  ],
  [
    'rewardable false: nothing',
    { referrer_reward: usd10, referred_reward: usd10 },
    purchase({ rewardable: false }),
    [],
  ],
  [
    'rewarded true: recorded as already paid',
    { referrer_reward: usd10, referred_reward: null },
    purchase({ rewarded: true }),
    [{ role: 'referrer', amount: 10_000_000n, amountUnits: 'USD', isCurrency: true, status: 'paid' }],
  ],
  [
    'a zero or negative amount earns no percent reward',
    { referrer_reward: pct30, referred_reward: usd10 },
    purchase({ amount: -5_000_000n }),
    [{ role: 'referred', amount: 10_000_000n, amountUnits: 'USD', isCurrency: true, status: 'ok' }],
  ],
];

describe('calculateRewards', () => {
  for (const [name, settings, input, expected] of cases) {
    test(name, () => {
      const drafts = calculateRewards(settings, input).map(
        ({ role, amount, amountUnits, isCurrency, status }) => ({
          role,
          amount,
          amountUnits,
          isCurrency,
          status,
        }),
      );
      assert.deepEqual(drafts, expected);
    });
  }

  test('drafts carry the setting type and value', () => {
    const [draft] = calculateRewards({ referrer_reward: pct30, referred_reward: null }, purchase());
    assert.equal(draft?.commissionType, 'percent');
    assert.equal(draft?.commissionValue, 30);
  });
});

describe('rewardSettingsOf', () => {
  test('absent keys take the defaults; null turns a side off', () => {
    assert.deepEqual(rewardSettingsOf({}), defaultRewardSettings);
    assert.deepEqual(rewardSettingsOf({ referrer_reward: null }), {
      referrer_reward: null,
      referred_reward: defaultRewardSettings.referred_reward,
    });
  });
});
