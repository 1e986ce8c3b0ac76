import { programMetrics } from './program-stats.ts';
import { customerMetrics } from './sales.ts';

/** What a refer-a-friend signup's figures depend on. */
export interface ReferralSignupFacts {
  /** Whether the new customer names a referrer. */
  referred: boolean;
  /** Signed up with its referrer's own e-mail (core/self-referral.ts). */
  selfReferral: boolean;
  /** The referrer's `referrals_count` before this signup (0 without a referrer). */
  referrerReferralsBefore: number;
}

/** The figures a refer-a-friend signup moves, and whether later signups decide on it. */
export interface ReferralSignupFigures {
  /** Program figures (program_counters), counted on the signup's day. */
  program: Record<string, number>;
  /** The referrer's own figures (entity_counters), or undefined without a referrer. */
  referrer: Record<string, number> | undefined;
  /**
   * The referrer's first referral: it makes the referrer a referring customer, which a concurrent
   * signup of the same referrer, decided on the count before this one, must not count again. So
   * such a signup moves the referrer's version on (migration 0023), and a concurrent one decides
   * again; later referrals add to counts that nothing decides on, and need no version.
   */
  firstReferral: boolean;
}

export function referralSignupFigures(facts: ReferralSignupFacts): ReferralSignupFigures {
  const program: Record<string, number> = { [programMetrics.customers]: 1 };
  if (facts.selfReferral) program[programMetrics.rejectedSelfReferrals] = 1;
  if (!facts.referred) return { program, referrer: undefined, firstReferral: false };
  program[programMetrics.referredCustomers] = 1;
  const firstReferral = facts.referrerReferralsBefore === 0;
  if (firstReferral) program[programMetrics.referringCustomers] = 1;
  return {
    program,
    referrer: { [customerMetrics.referralsCount]: 1, [customerMetrics.signups]: 1 },
    firstReferral,
  };
}

/** What deleting a refer-a-friend customer depends on. */
export interface ReferralDeleteFacts {
  /** Whether it was referred (its referrer's `referrals_count` counts it). */
  referred: boolean;
  /** Signed up with its referrer's own e-mail. */
  selfReferral: boolean;
  /** Its own `referrals_count`: more than 0 made it a referring customer. */
  ownReferrals: number;
  /** Its referrer's `referrals_count` before the delete (0 without a referrer). */
  referrerReferralsBefore: number;
}

/**
 * The program figures a delete takes back: the signup's own, and a referring customer for each
 * of the two that stops being one, the deleted customer if it had referred anyone, and its
 * referrer if this was its last referral (the mirror of a first referral, above).
 */
export function referralDeleteFigures(facts: ReferralDeleteFacts): Record<string, number> {
  const program: Record<string, number> = { [programMetrics.customers]: -1 };
  if (facts.selfReferral) program[programMetrics.rejectedSelfReferrals] = -1;
  if (facts.referred) program[programMetrics.referredCustomers] = -1;
  const referringLost =
    (facts.ownReferrals > 0 ? 1 : 0) + (facts.referred && facts.referrerReferralsBefore === 1 ? 1 : 0);
  if (referringLost > 0) program[programMetrics.referringCustomers] = -referringLost;
  return program;
}
