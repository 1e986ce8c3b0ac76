import { type Micros, parseAmount, percentOf } from './money.ts';
import { addDays } from './time.ts';

/**
 * Affiliate commissions: what a partner (and the partner who referred it, for tier two) earns on
 * one sale, from the program's commission settings. Pure: the caller supplies the sale, the
 * customer's history that matters (when it signed up, how many sales it made before) and "now".
 */

export type CommissionType = 'percent' | 'fixed';
export type CommissionDuration = 'lifetime' | 'times' | 'days' | 'months' | 'years';

export interface CommissionRule {
  type: CommissionType;
  /** Percent of the sale (30 = 30 %) or a fixed amount in the sale's currency. */
  value: number;
}

export interface ProductCommission extends CommissionRule {
  product_id?: string | null;
  product_type?: string | null;
}

export interface CommissionSettings {
  commission: CommissionRule & { duration: CommissionDuration; duration_value: number | null };
  /** The most specific match wins: product id and type, then id, then type. */
  product_commissions: ProductCommission[];
  /** Rewards stay `review_period` this many days, then become `ok`. */
  commission_hold_days: number;
  /**
   * False: commissions stay pending (`review_period`) until a person approves them, hold or not;
   * the worker never settles them.
   */
  commission_auto_approve: boolean;
  /** What the partner who referred the earning partner gets; null: no second tier. */
  tier2_commission: CommissionRule | null;
}

export const defaultCommissionSettings: CommissionSettings = {
  commission: { type: 'percent', value: 20, duration: 'lifetime', duration_value: null },
  product_commissions: [],
  commission_hold_days: 0,
  commission_auto_approve: true,
  tier2_commission: null,
};

export interface Sale {
  amountMicros: Micros;
  productId: string | null;
  productType: string | null;
  /** `false`: the sale earns nothing. */
  rewardable: boolean;
  /** `true`: the commission was already paid outside Vouch; it is recorded as `paid`. */
  rewarded: boolean;
  /** When the sale happens (a timestamp). */
  at: string;
  /** When the customer signed up (a timestamp): the start of a `days`/`months`/`years` duration. */
  customerSince: string;
  /** Commissioned sales of this customer before this one (for `times`). */
  previousSales: number;
  /** Whether the earning partner has a referring partner (tier two). */
  hasParent: boolean;
}

/** What a sale decides; review adds `denied` and `voided` (core/commission-status.ts). */
export type RewardStatus = 'review_period' | 'ok' | 'paid';
/** `rejected`: a self-referral's commission (core/self-referral.ts), shown but owed to no one. */
export type StoredRewardStatus = RewardStatus | 'denied' | 'voided' | 'rejected';

export interface Commission {
  role: 'commission' | 'tier2';
  amountMicros: Micros;
  type: CommissionType;
  value: number;
  status: RewardStatus;
  /** When a reward in review becomes `ok`; null when it is not in review. */
  availableAt: string | null;
}

/**
 * What one rule earns on a sale, exactly: a percentage is read from its decimal text and the
 * result rounded half up to a micro-unit (30 % of 99.99 is 29.997); a fixed amount follows the
 * money rule like any amount sent to the API.
 */
export function amountOf(rule: CommissionRule, saleMicros: Micros): Micros {
  if (rule.type === 'percent') return percentOf(saleMicros, rule.value);
  const fixed = parseAmount(rule.value);
  // Settings are validated when written; a value that slipped past cannot be paid approximately.
  if (!fixed.ok)
    throw new RangeError(`Commission amount ${rule.value} cannot be kept exactly (${fixed.reason}).`);
  return fixed.micros;
}

/** The product override that fits the sale best, if any. */
export function matchProductCommission(
  rules: readonly ProductCommission[],
  productId: string | null,
  productType: string | null,
): ProductCommission | undefined {
  let best: ProductCommission | undefined;
  let bestScore = 0;
  for (const rule of rules) {
    const id = rule.product_id ?? null;
    const type = rule.product_type ?? null;
    if (id === null && type === null) continue;
    if (id !== null && id !== productId) continue;
    if (type !== null && type !== productType) continue;
    const score = (id !== null ? 2 : 0) + (type !== null ? 1 : 0);
    if (score > bestScore) {
      best = rule;
      bestScore = score;
    }
  }
  return best;
}

function addMonths(timestamp: string, months: number): string {
  const date = new Date(timestamp);
  date.setUTCMonth(date.getUTCMonth() + months);
  return `${date.toISOString().slice(0, 19)}${timestamp.slice(19)}`;
}

/**
 * A commission limited in sales or time that does not say how many (`duration_value`): refused,
 * since "for the first undefined payments" helps nobody. Lifetime, or no duration, needs none.
 */
export function lacksDurationCount(commission: unknown): boolean {
  if (typeof commission !== 'object' || commission === null) return false;
  const duration = 'duration' in commission ? commission.duration : undefined;
  const count = 'duration_value' in commission ? commission.duration_value : undefined;
  return duration !== undefined && duration !== 'lifetime' && (count === undefined || count === null);
}

/** Whether the commission duration still covers a sale of this customer. */
export function withinDuration(settings: CommissionSettings['commission'], sale: Sale): boolean {
  const n = settings.duration_value ?? 0;
  switch (settings.duration) {
    case 'lifetime':
      return true;
    case 'times':
      return sale.previousSales < n;
    case 'days':
      return sale.at < `${addDays(sale.customerSince.slice(0, 10), n)}${sale.customerSince.slice(10)}`;
    case 'months':
      return sale.at < addMonths(sale.customerSince, n);
    case 'years':
      return sale.at < addMonths(sale.customerSince, 12 * n);
  }
}

/** The rewards one sale produces: none, the partner's commission, and maybe a tier-two one. */
export function computeCommissions(settings: CommissionSettings, sale: Sale): Commission[] {
  if (!sale.rewardable || !withinDuration(settings.commission, sale)) return [];
  const hold = settings.commission_hold_days;
  const reviewed = hold > 0 || !settings.commission_auto_approve;
  const status: RewardStatus = sale.rewarded ? 'paid' : reviewed ? 'review_period' : 'ok';
  const availableAt =
    status === 'review_period' ? `${addDays(sale.at.slice(0, 10), hold)}${sale.at.slice(10)}` : null;
  const rule: CommissionRule =
    matchProductCommission(settings.product_commissions, sale.productId, sale.productType) ??
    settings.commission;
  const out: Commission[] = [
    {
      role: 'commission',
      amountMicros: amountOf(rule, sale.amountMicros),
      type: rule.type,
      value: rule.value,
      status,
      availableAt,
    },
  ];
  const tier2 = settings.tier2_commission;
  if (tier2 && sale.hasParent) {
    out.push({
      role: 'tier2',
      amountMicros: amountOf(tier2, sale.amountMicros),
      type: tier2.type,
      value: tier2.value,
      status,
      availableAt,
    });
  }
  return out.filter((commission) => commission.amountMicros !== 0n);
}

/** Where a reward's amount is counted in its partner's figures, by reward status; denied and voided ones are not. */
const commissionBucket = {
  review_period: 'pending',
  ok: 'not_paid',
  paid: 'paid',
  denied: null,
  voided: null,
  rejected: null,
} as const satisfies Record<StoredRewardStatus, string | null>;

/** Whether a stored status counts in its partner's figures (denied and voided commissions do not). */
export function countedStatus(status: string): status is RewardStatus {
  return status === 'review_period' || status === 'ok' || status === 'paid';
}

/** Names of the per-partner (and per-link) figures in entity counters. */
export const partnerMetrics = {
  clicks: 'clicks',
  signups: 'signups',
  salesCount: 'sales_count',
  paidAccounts: 'paid_accounts',
  revenue: (currency: string) => `revenue:${currency.toLowerCase()}`,
  commission: (status: RewardStatus, currency: string): string =>
    `commission_${commissionBucket[status]}:${currency.toLowerCase()}`,
} as const;
