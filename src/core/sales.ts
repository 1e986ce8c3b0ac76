import { type CommissionSettings, computeCommissions, countedStatus, partnerMetrics } from './commissions.ts';
import { divideRoundingHalfUp as divideHalfUp } from './money.ts';
import { programMetrics, revenueMetric } from './program-stats.ts';
import {
  balanceMetric,
  calculateRewards,
  type RewardRole,
  type RewardSettings,
  rewardCountMetric,
  rewardRoles,
} from './rewards.ts';
import { guardedStatus, REJECTED } from './self-referral.ts';

/**
 * What a sale does, decided before anything is written: who it concerns, the rewards it earns and
 * every figure it moves. Pure: the caller reads the settings and the buyer's history, then applies
 * the decision in one transaction. Archive, revoke-archive, delete and `vouch seed` move figures
 * through the same `…SaleFigures` functions, so no second copy of a counter rule exists.
 */

export interface SaleInput {
  amountMicros: bigint;
  /** The currency code the request sent, upper case; null when it sent none. */
  currency: string | null;
  rewardable: boolean;
  rewarded: boolean;
  productId: string | null;
  productType: string | null;
  /** When the sale is recorded (a timestamp). */
  at: string;
}

export type FigureOwnerKind = 'partner' | 'customer' | 'link';

/** One change to one per-entity figure (entity counters). */
export interface FigureChange {
  kind: FigureOwnerKind;
  id: number;
  metric: string;
  value: bigint;
}

/** One reward row as decided, in the sale's terms. */
export interface RewardDecision {
  partnerId: number | null;
  customerId: number | null;
  role: string;
  status: string;
  amountMicros: bigint;
  units: string;
  isCurrency: boolean;
  commissionType: string;
  commissionValue: string;
  availableAt: string | null;
}

/** The figures a sale moves: the program's on the sale's day, and the entities'. */
export interface SaleFigures {
  /** Program figures (program counters) of the sale's day. */
  program: Record<string, bigint>;
  /** Entity figures, in a fixed order (kind, id, metric) so concurrent writers lock rows alike. */
  entities: FigureChange[];
}

export interface SaleDecision {
  customerId: number;
  partnerId: number | null;
  referringCustomerId: number | null;
  amountMicros: bigint;
  currency: string | null;
  rewards: RewardDecision[];
  figures: SaleFigures;
  /**
   * Whether a later sale of the buyer may decide differently because this one counted (its first
   * sale, or a commission limited to a number of sales not reached yet). A sale that does not
   * leaves the buyer's sale version as it was (migration 0023): a concurrent sale of the same
   * buyer, decided on the count before this one, stays right.
   */
  countsForLaterSales: boolean;
}

// Figures are built with this rather than object spreads: a sale builds a dozen of them, and a
// spread costs more than the rest of the decision on this kind of machine.
const figure = (kind: FigureOwnerKind, id: number, metric: string, value: bigint): FigureChange => ({
  kind,
  id,
  metric,
  value,
});

/** The fixed order of figures: owner kind, owner id, metric. */
export function compareFigures(
  a: Pick<FigureChange, 'kind' | 'id' | 'metric'>,
  b: Pick<FigureChange, 'kind' | 'id' | 'metric'>,
): number {
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  if (a.id !== b.id) return a.id - b.id;
  return a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0;
}

/**
 * Adds up changes to the same figure, drops zeros and sorts, so writers lock rows in one order.
 * A write moves about ten figures: a linear search beats hashing composite keys at that size.
 */
export function orderedFigures(changes: readonly FigureChange[]): FigureChange[] {
  const merged: FigureChange[] = [];
  for (const change of changes) {
    const same = merged.find(
      (f) => f.id === change.id && f.metric === change.metric && f.kind === change.kind,
    );
    if (same) same.value += change.value;
    else merged.push(figure(change.kind, change.id, change.metric, change.value));
  }
  return merged.filter((f) => f.value !== 0n).sort(compareFigures);
}

/**
 * Which figures a change moves: a whole sale (counts and amounts), or only amounts (a refund
 * takes money back but the sale still happened).
 */
export type FigureScope = 'sale' | 'amounts';

function programFigures(
  sign: 1n | -1n,
  amountMicros: bigint,
  currency: string | null,
  scope: FigureScope = 'sale',
) {
  const program: Record<string, bigint> = scope === 'sale' ? { [programMetrics.sales]: sign } : {};
  if (currency !== null) program[revenueMetric(currency)] = sign * amountMicros;
  return program;
}

/** `1n` when a sale is added, `-1n` when it is taken back. */
export type Sign = 1n | -1n;

/** A paying account starts with its first counted sale and stops with its last. */
function payingChange(sign: Sign, salesBefore: number): bigint {
  if (sign === 1n) return salesBefore === 0 ? 1n : 0n;
  return salesBefore === 1 ? -1n : 0n;
}

// ---------------------------------------------------------------------------------------------
// Affiliate programs: the buyer's partner earns a commission (and its parent, tier two).

export interface AffiliateSaleHistory {
  /** `selfReferral`: the buyer signed up with its partner's own e-mail (core/self-referral.ts). */
  buyer: { id: number; since: string; salesBefore: number; selfReferral?: boolean };
  /** The buyer's partner; null when it has none. */
  partner: { id: number; archived: boolean; parentId: number | null } | null;
  programCurrency: string;
}

/** A stored affiliate sale and its rewards, as far as figures are concerned. */
export interface AffiliateSaleFacts {
  customerId: number;
  partnerId: number | null;
  amountMicros: bigint;
  currency: string;
  rewards: readonly { partnerId: number | null; status: string; amountMicros: bigint; units: string }[];
}

/** What an affiliate sale adds (`1n`) or takes back (`-1n`); `salesBefore` counts the buyer's sales before the change. */
export function affiliateSaleFigures(
  sale: AffiliateSaleFacts,
  sign: Sign,
  salesBefore: number,
  scope: FigureScope = 'sale',
): SaleFigures {
  const counts = scope === 'sale';
  const entities = counts ? [figure('customer', sale.customerId, partnerMetrics.salesCount, sign)] : [];
  const partner = sale.partnerId;
  if (partner !== null) {
    entities.push(
      figure('partner', partner, partnerMetrics.revenue(sale.currency), sign * sale.amountMicros),
    );
    if (counts)
      entities.push(
        figure('partner', partner, partnerMetrics.salesCount, sign),
        figure('partner', partner, partnerMetrics.paidAccounts, payingChange(sign, salesBefore)),
      );
  }
  for (const reward of sale.rewards) {
    // A rejected commission (self-referral), a denied or a voided one is shown but owed to no one.
    if (reward.partnerId === null || !countedStatus(reward.status)) continue;
    const metric = partnerMetrics.commission(reward.status, reward.units);
    entities.push(figure('partner', reward.partnerId, metric, sign * reward.amountMicros));
  }
  return {
    program: programFigures(sign, sale.amountMicros, sale.currency, scope),
    entities: orderedFigures(entities),
  };
}

export function decideAffiliateSale(
  settings: CommissionSettings,
  history: AffiliateSaleHistory,
  sale: SaleInput,
): SaleDecision {
  const currency = sale.currency ?? history.programCurrency.toUpperCase();
  const partner = history.partner;
  // An archived partner's links no longer attribute: its customers' sales earn nothing.
  const commissions =
    partner && !partner.archived
      ? computeCommissions(settings, {
          amountMicros: sale.amountMicros,
          productId: sale.productId,
          productType: sale.productType,
          rewardable: sale.rewardable,
          rewarded: sale.rewarded,
          at: sale.at,
          customerSince: history.buyer.since,
          previousSales: history.buyer.salesBefore,
          hasParent: partner.parentId !== null,
        })
      : [];
  const rewards: RewardDecision[] = commissions.map((commission) => ({
    partnerId: commission.role === 'tier2' ? partner!.parentId : partner!.id,
    customerId: null,
    role: commission.role,
    status: guardedStatus(commission.status, history.buyer.selfReferral === true),
    amountMicros: BigInt(commission.amountMicros),
    units: currency,
    isCurrency: true,
    commissionType: commission.type,
    commissionValue: String(commission.value),
    availableAt: history.buyer.selfReferral === true ? null : commission.availableAt,
  }));
  const facts: AffiliateSaleFacts = {
    customerId: history.buyer.id,
    partnerId: partner?.id ?? null,
    amountMicros: sale.amountMicros,
    currency,
    rewards,
  };
  return {
    customerId: history.buyer.id,
    partnerId: partner?.id ?? null,
    referringCustomerId: null,
    amountMicros: sale.amountMicros,
    currency,
    rewards,
    figures: affiliateSaleFigures(facts, 1n, history.buyer.salesBefore),
    countsForLaterSales: affiliateSaleCounts(settings, history.buyer.salesBefore),
  };
}

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

/** `SaleDecision.countsForLaterSales` of an affiliate sale: a first sale, or one within a `times` duration. */
export function affiliateSaleCounts(settings: CommissionSettings, salesBefore: number): boolean {
  const { duration, duration_value } = settings.commission;
  return salesBefore === 0 || (duration === 'times' && salesBefore < (duration_value ?? 0));
}

/** Commissions whose hold has passed move from the partner's pending figure to its not-paid one. */
export function settledCommissionFigures(
  partnerId: number,
  commissions: readonly { amountMicros: bigint; units: string }[],
): FigureChange[] {
  return orderedFigures(
    commissions.flatMap((commission) => [
      {
        kind: 'partner' as const,
        id: partnerId,
        metric: partnerMetrics.commission('review_period', commission.units),
        value: -commission.amountMicros,
      },
      {
        kind: 'partner' as const,
        id: partnerId,
        metric: partnerMetrics.commission('ok', commission.units),
        value: commission.amountMicros,
      },
    ]),
  );
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
  };
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
  const drafts = calculateRewards(settings, {
    amount: sale.amountMicros,
    amountUnits: sale.currency,
    rewardable: sale.rewardable,
    rewarded: sale.rewarded,
    previousPurchases: buyer.purchasesBefore,
    previousRewards: buyer.rewardsBefore,
  });
  const rewards: RewardDecision[] = drafts.map((draft) => ({
    partnerId: null,
    customerId: draft.role === 'referrer' ? buyer.referrerId : buyer.id,
    role: draft.role,
    status: guardedStatus(draft.status, buyer.selfReferral === true),
    amountMicros: BigInt(draft.amount),
    units: draft.amountUnits,
    isCurrency: draft.isCurrency,
    commissionType: draft.commissionType,
    commissionValue: String(draft.commissionValue),
    availableAt: null,
  }));
  return {
    customerId: buyer.id,
    partnerId: null,
    referringCustomerId: buyer.referrerId,
    amountMicros: sale.amountMicros,
    currency: sale.currency,
    rewards,
    countsForLaterSales: referralSaleCounts(settings, buyer),
    figures: referralSaleFigures(
      {
        buyerId: buyer.id,
        referrerId: buyer.referrerId,
        amountMicros: sale.amountMicros,
        currency: sale.currency,
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

// ---------------------------------------------------------------------------------------------
// Refunds (both program types): money goes back, the sale stays.

/** A stored reward of the refunded sale. */
export interface RefundedReward {
  id: number;
  role: string;
  status: string;
  partnerId: number | null;
  customerId: number | null;
  amountMicros: bigint;
  /** The amount before any refund reduced it (its current amount when never reduced). */
  originalMicros: bigint;
  units: string;
  isCurrency: boolean;
  /** Whether it sits in a payout that is not paid yet: it is treated like a paid one. */
  inPayout: boolean;
}

export interface RefundedSale {
  type: 'affiliate' | 'referral';
  customerId: number;
  partnerId: number | null;
  referringCustomerId: number | null;
  amountMicros: bigint;
  currency: string | null;
  refundedBefore: bigint;
  /** Archived sales are in no figure: their rows change, no figure moves. */
  archived: boolean;
  rewards: readonly RefundedReward[];
}

export interface RefundDecision {
  refundedAfter: bigint;
  full: boolean;
  /** Unpaid rewards: their reduced amount, or `voided` when the sale is refunded in full. */
  updates: { id: number; amountMicros: bigint; originalMicros: bigint; status: string }[];
  /** Paid commissions: a negative line that the next payout nets out. */
  clawbacks: { of: RefundedReward; amountMicros: bigint }[];
  figures: SaleFigures;
}

export type RefundRefusal = 'refunded' | 'too-much' | 'not-positive';

/**
 * What a refund of `refundMicros` does. Each reward keeps the share of its original amount that
 * the unrefunded part of the sale bears (`original × (sale − refunded) / sale`, rounded half up
 * to a micro-unit), so partial refunds add up to exactly what one refund of their sum would do.
 * An unpaid reward is reduced to that share (voided at zero, when refunded in full); a paid
 * commission (or one in an unpaid payout) keeps its amount and gets a clawback line of the
 * difference. Refer-a-friend rewards: `ok` ones are the customer's balance, which goes down by
 * the same rule; non-currency rewards (points, a free month) only go when refunded in full;
 * rewards paid outside Vouch are left alone. Figures: the revenue and the rewards' figures, never
 * the sale counts (`amounts` scope of the sale's own figure functions).
 */
export function decideRefund(sale: RefundedSale, refundMicros: bigint): RefundDecision | RefundRefusal {
  if (sale.refundedBefore >= sale.amountMicros) return 'refunded';
  if (refundMicros <= 0n) return 'not-positive';
  const refundedAfter = sale.refundedBefore + refundMicros;
  if (refundedAfter > sale.amountMicros) return 'too-much';
  const full = refundedAfter === sale.amountMicros;
  const share = (original: bigint, refunded: bigint) =>
    sale.amountMicros === 0n
      ? 0n
      : divideHalfUp(original * (sale.amountMicros - refunded), sale.amountMicros);
  const updates: RefundDecision['updates'] = [];
  const clawbacks: RefundDecision['clawbacks'] = [];
  // Amounts leaving each reward's figure (taken back with sign -1).
  const takenBack: {
    partnerId: number | null;
    customerId: number | null;
    role: string;
    status: string;
    amountMicros: bigint;
    units: string;
    isCurrency: boolean;
  }[] = [];
  for (const reward of sale.rewards) {
    if (reward.role === 'clawback' || reward.status === 'voided' || reward.status === 'denied') continue;
    const before = share(reward.originalMicros, sale.refundedBefore);
    const after = share(reward.originalMicros, refundedAfter);
    const paid = reward.status === 'paid' || reward.inPayout;
    if (sale.type === 'referral') {
      if (reward.status === 'paid') continue;
      if (!reward.isCurrency && !full) continue;
    }
    if (paid && sale.type === 'affiliate') {
      if (before === after) continue;
      clawbacks.push({ of: reward, amountMicros: after - before });
      takenBack.push({ ...reward, status: 'ok', amountMicros: before - after });
      continue;
    }
    const target = reward.isCurrency ? after : 0n;
    if (full || target === 0n) {
      updates.push({
        id: reward.id,
        amountMicros: reward.amountMicros,
        originalMicros: reward.originalMicros,
        status: 'voided',
      });
      takenBack.push({ ...reward, amountMicros: reward.amountMicros });
      continue;
    }
    if (target === reward.amountMicros) continue;
    updates.push({
      id: reward.id,
      amountMicros: target,
      originalMicros: reward.originalMicros,
      status: reward.status,
    });
    takenBack.push({ ...reward, amountMicros: reward.amountMicros - target });
  }
  const empty: SaleFigures = { program: {}, entities: [] };
  let figures = empty;
  if (!sale.archived) {
    figures =
      sale.type === 'affiliate'
        ? affiliateSaleFigures(
            {
              customerId: sale.customerId,
              partnerId: sale.partnerId,
              amountMicros: refundMicros,
              currency: sale.currency ?? 'USD',
              rewards: takenBack,
            },
            -1n,
            0,
            'amounts',
          )
        : referralSaleFigures(
            {
              buyerId: sale.customerId,
              referrerId: sale.referringCustomerId,
              amountMicros: refundMicros,
              currency: sale.currency,
              rewards: takenBack,
            },
            -1n,
            0,
            'amounts',
          );
  }
  // A clawback is owed whatever its sale's state: an archived sale moves no figure of its own, but
  // what was paid (or is in a payout) for it still comes back out of the partner's next payout.
  if (sale.archived)
    figures = {
      program: {},
      entities: orderedFigures(
        clawbacks.flatMap(({ of, amountMicros }) =>
          of.partnerId === null
            ? []
            : [figure('partner', of.partnerId, partnerMetrics.commission('ok', of.units), amountMicros)],
        ),
      ),
    };
  return { refundedAfter, full, updates, clawbacks, figures };
}
