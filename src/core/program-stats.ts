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
  /** Active reward or commission configurations: a running total, not a daily figure. */
  activeRewards: 'active_rewards',
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
