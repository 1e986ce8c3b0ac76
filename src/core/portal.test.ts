import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultCommissionSettings } from './commissions.ts';
import {
  commissionTermsInWords,
  dailySeries,
  MAX_DELAY_SECONDS,
  maskedName,
  offerInWords,
  secondsToWait,
  signInDelaySeconds,
  waitInWords,
} from './portal.ts';
import { defaultRewardSettings } from './rewards.ts';

test('failed sign-ins wait longer each time, after the free ones, up to 15 minutes', () => {
  const cases: [failures: number, free: number, seconds: number][] = [
    [0, 5, 0],
    [4, 5, 0],
    [5, 5, 1],
    [6, 5, 2],
    [9, 5, 16],
    [15, 5, 900],
    [60, 5, MAX_DELAY_SECONDS],
    [19, 20, 0],
    [20, 20, 1],
  ];
  for (const [failures, free, seconds] of cases)
    assert.equal(signInDelaySeconds(failures, free), seconds, `${failures} failures, ${free} free`);
  assert.equal(secondsToWait(6, 5, 10_000, 10_500), 2, 'rounded up');
  assert.equal(secondsToWait(6, 5, 10_000, 12_000), 0, 'waited enough');
  assert.equal(secondsToWait(2, 5, 10_000, 10_000), 0, 'still free');
  assert.equal(waitInWords(1), 'in 1 second');
  assert.equal(waitInWords(59), 'in 59 seconds');
  assert.equal(waitInWords(61), 'in 2 minutes');
});

test('customers are shown by their initials', () => {
  const cases: [name: string | null, email: string | null, shown: string][] = [
    ['John Doe', 'john@example.com', 'J. D.'],
    ['  jane   van der berg ', null, 'J. B.'],
    ['Cher', 'cher@example.com', 'C.'],
    [null, 'zoe@example.com', 'Z.'],
    ['', '', '?'],
    ['<script>alert(1)</script>', null, '<.'],
  ];
  for (const [name, email, shown] of cases) assert.equal(maskedName(name, email), shown, `${name} ${email}`);
  // The surname is a field of its own: "Kim" + "Lee" is "K. L.", as "Kim Lee" is.
  assert.equal(maskedName('Kim', 'kim@example.com', 'Lee'), 'K. L.');
  assert.equal(maskedName('Kim Lee', 'kim@example.com', null), 'K. L.');
  assert.equal(maskedName(null, 'kim@example.com', 'Lee'), 'L.');
  assert.equal(maskedName('  ', 'kim@example.com', '  '), 'K.');
});

test('commission terms in words', () => {
  const base = defaultCommissionSettings;
  const cases: [settings: typeof base, words: string][] = [
    [base, '20 % of every payment for the lifetime of the customer.'],
    [
      {
        ...base,
        commission: { type: 'percent', value: 20, duration: 'months', duration_value: 12 },
        commission_hold_days: 30,
      },
      '20 % of every payment for 12 months, paid after a 30-day hold.',
    ],
    [
      { ...base, commission: { type: 'fixed', value: 5, duration: 'times', duration_value: 1 } },
      '5 EUR per payment for the first 1 payment.',
    ],
    [
      {
        ...base,
        tier2_commission: { type: 'percent', value: 5 },
        product_commissions: [{ type: 'fixed', value: 1 }],
      },
      '20 % of every payment for the lifetime of the customer. Also: some products earn their own rate; partners you refer earn you 5 % of their sales too.',
    ],
  ];
  for (const [settings, words] of cases) assert.equal(commissionTermsInWords(settings, 'EUR'), words);
});

test('the chart has one value per day, zeros filled in', () => {
  const series = dailySeries(
    [
      { day: '2026-01-14', value: 3 },
      { day: '2026-01-01', value: 9 },
    ],
    '2026-01-15',
    3,
  );
  assert.deepEqual(series, [
    { day: '2026-01-13', value: 0 },
    { day: '2026-01-14', value: 3 },
    { day: '2026-01-15', value: 0 },
  ]);
});

test('a refer-a-friend offer in words', () => {
  const base = defaultRewardSettings;
  const points = { ...base.referrer_reward, amount_units: 'points', is_currency: false, value: 50 };
  const cases: [settings: Parameters<typeof offerInWords>[0], words: string | undefined][] = [
    [base, 'Give 10 USD, get 10 USD, when your friend first buys.'],
    [{ referred_reward: null, referrer_reward: points }, 'Get 50 points, when your friend first buys.'],
    [
      {
        referred_reward: { ...base.referred_reward, type: 'percent', value: 15, trigger: 'every_purchase' },
        referrer_reward: null,
      },
      'Give 15 % of a purchase, on every purchase.',
    ],
    [{ referred_reward: null, referrer_reward: null }, undefined],
  ];
  for (const [settings, words] of cases) assert.equal(offerInWords(settings), words);
});
