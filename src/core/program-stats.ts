import type { ProgramType } from './program-types.ts';

/**
 * The program counters modules keep current (program_counters), and how the overview reads them:
 * each figure is the count of the last 30 days, `_before` the count of the 30 days before that,
 * and `_growth` the percentage change between the two.
 */
export const programMetrics = {
  customers: 'customers',
  referringCustomers: 'referring_customers',
  referredCustomers: 'referred_customers',
  sales: 'sales',
  clicks: 'clicks',
  /** Customers stored as self-referrals: no commission or reward (core/self-referral.ts). */
  rejectedSelfReferrals: 'rejected_self_referrals',
} as const;

/** Revenue of a currency, in micro-units: `revenue:usd`. */
export const revenueMetric = (currency: string) => `revenue:${currency.toLowerCase()}`;

export const OVERVIEW_WINDOW_DAYS = 30;

/** Percentage change, rounded to two decimals; from nothing to something counts as 100 %. */
export function growth(current: number, before: number): number {
  if (before === 0) return current > 0 ? 100 : 0;
  return Math.round(((current - before) / before) * 10_000) / 100;
}

/** Share of customers who referred someone, in percent with two decimals. */
export function participation(referring: number, customers: number): number {
  if (customers === 0) return 0;
  return Math.round((referring / customers) * 10_000) / 100;
}

const isSet = (value: unknown) => value !== null && value !== undefined;

/**
 * `active_rewards` of the overview: how many reward rules the program's settings switch on. It
 * is read from the settings themselves, the one place those rules live.
 */
const activeRewardsByType = {
  affiliate: (settings) =>
    Number(isSet(settings.commission)) +
    (Array.isArray(settings.product_commissions) ? settings.product_commissions.length : 0) +
    Number(isSet(settings.tier2_commission)),
  referral: (settings) => Number(isSet(settings.referrer_reward)) + Number(isSet(settings.referred_reward)),
  // Newsletter rewards are resources of their own (milestones), counted by the rewards module.
  newsletter: (_settings, milestones) => milestones,
} satisfies Record<ProgramType, (settings: Record<string, unknown>, milestones: number) => number>;

export function activeRewards(type: ProgramType, settings: Record<string, unknown>, milestones = 0): number {
  return activeRewardsByType[type](settings, milestones);
}
