import {
  type CommissionSettings,
  computeCommissions,
  partnerMetrics,
  type RewardStatus,
} from './commissions.ts';
import { programMetrics, revenueMetric } from './program-stats.ts';
import {
  balanceMetric,
  calculateRewards,
  type RewardRole,
  type RewardSettings,
  rewardCountMetric,
} from './rewards.ts';

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

function programFigures(sign: 1n | -1n, amountMicros: bigint, currency: string | null) {
  const program: Record<string, bigint> = { [programMetrics.sales]: sign };
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
  buyer: { id: number; since: string; salesBefore: number };
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
export function affiliateSaleFigures(sale: AffiliateSaleFacts, sign: Sign, salesBefore: number): SaleFigures {
  const entities = [figure('customer', sale.customerId, partnerMetrics.salesCount, sign)];
  const partner = sale.partnerId;
  if (partner !== null) {
    entities.push(
      figure('partner', partner, partnerMetrics.salesCount, sign),
      figure('partner', partner, partnerMetrics.revenue(sale.currency), sign * sale.amountMicros),
      figure('partner', partner, partnerMetrics.paidAccounts, payingChange(sign, salesBefore)),
    );
  }
  for (const reward of sale.rewards) {
    if (reward.partnerId === null) continue;
    const metric = partnerMetrics.commission(reward.status as RewardStatus, reward.units);
    entities.push(figure('partner', reward.partnerId, metric, sign * reward.amountMicros));
  }
  return {
    program: programFigures(sign, sale.amountMicros, sale.currency),
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
    status: commission.status,
    amountMicros: BigInt(commission.amountMicros),
    units: currency,
    isCurrency: true,
    commissionType: commission.type,
    commissionValue: String(commission.value),
    availableAt: commission.availableAt,
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
  };
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
): SaleFigures {
  const buyer = sale.buyerId;
  const entities = [figure('customer', buyer, customerMetrics.purchases, sign)];
  for (const reward of sale.rewards) {
    entities.push(figure('customer', buyer, rewardCountMetric(reward.role as RewardRole), sign));
    if (reward.status === 'ok' && reward.customerId !== null) {
      const metric = balanceMetric(reward.isCurrency, reward.units);
      entities.push(figure('customer', reward.customerId, metric, sign * reward.amountMicros));
    }
  }
  const referrer = sale.referrerId;
  if (referrer !== null) {
    entities.push(
      figure('customer', referrer, customerMetrics.salesCount, sign),
      figure('customer', referrer, customerMetrics.paidAccounts, payingChange(sign, purchasesBefore)),
    );
    if (sale.currency !== null)
      entities.push(figure('customer', referrer, revenueMetric(sale.currency), sign * sale.amountMicros));
  }
  return {
    program: programFigures(sign, sale.amountMicros, sale.currency),
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
    status: draft.status,
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
