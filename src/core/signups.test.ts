import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ReferralSignupFacts, type ReferralSignupFigures, referralSignupFigures } from './signups.ts';

test('referralSignupFigures: program and referrer figures, and which signups later ones decide on', () => {
  const referrer = { referrals_count: 1, signups: 1 };
  const cases: [string, ReferralSignupFacts, ReferralSignupFigures][] = [
    [
      'no referrer',
      { referred: false, selfReferral: false, referrerReferralsBefore: 0 },
      { program: { customers: 1 }, referrer: undefined, firstReferral: false },
    ],
    [
      "a referrer's first referral",
      { referred: true, selfReferral: false, referrerReferralsBefore: 0 },
      {
        program: { customers: 1, referred_customers: 1, referring_customers: 1 },
        referrer,
        firstReferral: true,
      },
    ],
    [
      'a later referral',
      { referred: true, selfReferral: false, referrerReferralsBefore: 3 },
      { program: { customers: 1, referred_customers: 1 }, referrer, firstReferral: false },
    ],
    [
      'a first self-referral',
      { referred: true, selfReferral: true, referrerReferralsBefore: 0 },
      {
        program: {
          customers: 1,
          rejected_self_referrals: 1,
          referred_customers: 1,
          referring_customers: 1,
        },
        referrer,
        firstReferral: true,
      },
    ],
    [
      'a later self-referral',
      { referred: true, selfReferral: true, referrerReferralsBefore: 1 },
      {
        program: { customers: 1, rejected_self_referrals: 1, referred_customers: 1 },
        referrer,
        firstReferral: false,
      },
    ],
  ];
  for (const [name, facts, expected] of cases) assert.deepEqual(referralSignupFigures(facts), expected, name);
});
