import { revenueMetric } from './program-stats.ts';
import {
  balanceMetric,
  calculateRewards,
  type RewardRole,
  type RewardSettings,
  rewardCountMetric,
  rewardRoles,
} from './rewards.ts';
import {
  type FigureScope,
  figure,
  orderedFigures,
  payingChange,
  programFigures,
  type RewardDecision,
  type SaleDecision,
  type SaleFigures,
  type SaleInput,
  type Sign,
} from './sale-figures.ts';
import { guardedStatus, REJECTED } from './self-referral.ts';

/**
 * `SaleDecision.countsForLaterSales` of a refer-a-friend purchase: the buyer's first (its
 * referrer's paying account, `first_purchase` rewards), or one while a side's `limit` is not
 * reached (its rewards given so far decide the next).
 */
export function referralSaleCounts(settings: RewardSettings, buyer: ReferralSaleHistory['buyer']): boolean {
  if (buyer.purchasesBefore === 0) return true;
  return rewardRoles.some((role) => {
    const limit = settings[`${role}_reward`]?.limit ?? null;
    return limit !== null && buyer.rewardsBefore[role] < limit;
  });
}

// ---------------------------------------------------------------------------------------------
// Refer-a-friend programs: a referred buyer's purchase can reward the referrer and the buyer.

export interface ReferralSaleHistory {
  buyer: {
    id: number;
    referrerId: number;
    purchasesBefore: number;
    rewardsBefore: Record<RewardRole, number>;
    /** Signed up with its referrer's own e-mail (core/self-referral.ts): rewards are rejected. */
    selfReferral?: boolean;
    /**
     * An open fraud flag on the buyer (core/fraud.ts): its rewards stay pending (`review_period`,
     * in no balance) until a person clears or confirms the flag.
     */
    heldBy?: string | null;
  };
  /** The currency of a purchase sent without one (the program's `currency`), as affiliate sales. */
  programCurrency: string;
}

/** A stored refer-a-friend sale and its rewards, as far as figures are concerned. */
export interface ReferralSaleFacts {
  buyerId: number;
  referrerId: number | null;
  amountMicros: bigint;
  currency: string | null;
  rewards: readonly {
    role: string;
    status: string;
    customerId: number | null;
    amountMicros: bigint;
    units: string;
    isCurrency: boolean;
  }[];
}

/**
 * What a refer-a-friend sale adds or takes back: the program overview, the referrer's figures,
 * the buyer's purchase and reward counts, and the balances of `ok` rewards. A balance may go below
 * zero when a sale whose reward was already credited is taken back: that is what is owed.
 */
export function referralSaleFigures(
  sale: ReferralSaleFacts,
  sign: Sign,
  purchasesBefore: number,
  scope: FigureScope = 'sale',
): SaleFigures {
  const buyer = sale.buyerId;
  const counts = scope === 'sale';
  const entities = counts ? [figure('customer', buyer, customerMetrics.purchases, sign)] : [];
  for (const reward of sale.rewards) {
    if (reward.status === REJECTED) continue;
    if (counts) entities.push(figure('customer', buyer, rewardCountMetric(reward.role as RewardRole), sign));
    if (reward.status === 'ok' && reward.customerId !== null) {
      const metric = balanceMetric(reward.isCurrency, reward.units);
      entities.push(figure('customer', reward.customerId, metric, sign * reward.amountMicros));
    }
  }
  const referrer = sale.referrerId;
  if (referrer !== null) {
    if (counts)
      entities.push(
        figure('customer', referrer, customerMetrics.salesCount, sign),
        figure('customer', referrer, customerMetrics.paidAccounts, payingChange(sign, purchasesBefore)),
      );
    if (sale.currency !== null)
      entities.push(figure('customer', referrer, revenueMetric(sale.currency), sign * sale.amountMicros));
  }
  return {
    program: programFigures(sign, sale.amountMicros, sale.currency, scope),
    entities: orderedFigures(entities),
  };
}

export function decideReferralSale(
  settings: RewardSettings,
  history: ReferralSaleHistory,
  sale: SaleInput,
): SaleDecision {
  const { buyer } = history;
  const currency = sale.currency ?? history.programCurrency.toUpperCase();
  const drafts = calculateRewards(settings, {
    amount: sale.amountMicros,
    amountUnits: currency,
    rewardable: sale.rewardable,
    rewarded: sale.rewarded,
    previousPurchases: buyer.purchasesBefore,
    previousRewards: buyer.rewardsBefore,
  });
  const heldBy = buyer.heldBy ?? null;
  const rewards: RewardDecision[] = drafts.map((draft) => {
    const status = guardedStatus(draft.status, buyer.selfReferral === true);
    const held = heldBy !== null && status === 'ok';
    return {
      partnerId: null,
      customerId: draft.role === 'referrer' ? buyer.referrerId : buyer.id,
      role: draft.role,
      status: held ? 'review_period' : status,
      amountMicros: BigInt(draft.amount),
      units: draft.amountUnits,
      isCurrency: draft.isCurrency,
      commissionType: draft.commissionType,
      commissionValue: String(draft.commissionValue),
      availableAt: null,
      ...(held ? { fraudFlag: heldBy, heldAvailableAt: null } : {}),
    };
  });
  return {
    customerId: buyer.id,
    partnerId: null,
    referringCustomerId: buyer.referrerId,
    amountMicros: sale.amountMicros,
    currency,
    rewards,
    countsForLaterSales: referralSaleCounts(settings, buyer),
    figures: referralSaleFigures(
      {
        buyerId: buyer.id,
        referrerId: buyer.referrerId,
        amountMicros: sale.amountMicros,
        currency,
        rewards,
      },
      1n,
      buyer.purchasesBefore,
    ),
  };
}

/** Figures of one refer-a-friend customer in entity counters (owner kind `customer`). */
export const customerMetrics = {
  referralsCount: 'referrals_count',
  signups: 'signups',
  clicks: 'clicks',
  salesCount: 'sales_count',
  paidAccounts: 'paid_accounts',
  /** Purchases the customer made itself, as a referred buyer. */
  purchases: 'purchases',
} as const;
