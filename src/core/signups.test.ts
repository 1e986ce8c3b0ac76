import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ReferralDeleteFacts,
  type ReferralSignupFacts,
  type ReferralSignupFigures,
  referralDeleteFigures,
  referralSignupFigures,
} from './signups.ts';

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

test('referralDeleteFigures: a delete takes back its signup, and referring customers that stop being ones', () => {
  const facts = (over: Partial<ReferralDeleteFacts>): ReferralDeleteFacts => ({
    referred: false,
    selfReferral: false,
    ownReferrals: 0,
    referrerReferralsBefore: 0,
    ...over,
  });
  const cases: [string, ReferralDeleteFacts, Record<string, number>][] = [
    ['neither referred nor referring', facts({}), { customers: -1 }],
    [
      "its referrer's last referral",
      facts({ referred: true, referrerReferralsBefore: 1 }),
      { customers: -1, referred_customers: -1, referring_customers: -1 },
    ],
    [
      'one of several referrals',
      facts({ referred: true, referrerReferralsBefore: 4 }),
      { customers: -1, referred_customers: -1 },
    ],
    ['a referrer itself', facts({ ownReferrals: 2 }), { customers: -1, referring_customers: -1 }],
    [
      "a referrer that was its own referrer's last referral",
      facts({ referred: true, ownReferrals: 1, referrerReferralsBefore: 1 }),
      { customers: -1, referred_customers: -1, referring_customers: -2 },
    ],
    [
      'a self-referral, the last',
      facts({ referred: true, selfReferral: true, referrerReferralsBefore: 1 }),
      { customers: -1, rejected_self_referrals: -1, referred_customers: -1, referring_customers: -1 },
    ],
  ];
  for (const [name, given, program] of cases) assert.deepEqual(referralDeleteFigures(given), program, name);
});
