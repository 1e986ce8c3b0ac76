import { type CommissionSettings, computeCommissions, countedStatus, partnerMetrics } from './commissions.ts';
import {
  type FigureChange,
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
import { guardedStatus } from './self-referral.ts';

// ---------------------------------------------------------------------------------------------
// Affiliate programs: the buyer's partner earns a commission (and its parent, tier two).

export interface AffiliateSaleHistory {
  /** `selfReferral`: the buyer signed up with its partner's own e-mail (core/self-referral.ts). */
  buyer: {
    id: number;
    since: string;
    salesBefore: number;
    selfReferral?: boolean;
    /** An open fraud flag on the buyer (core/fraud.ts): its commissions wait for a person. */
    heldBy?: string | null;
  };
  /** The buyer's partner; null when it has none. */
  partner: { id: number; archived: boolean; parentId: number | null } | null;
  programCurrency: string;
  /**
   * The sale's own fraud rules (core/fraud.ts `decideSaleFraud`): `blocked` earns nothing,
   * `heldBy` holds its commissions like a flag on the buyer does (the buyer's flag first).
   */
  fraud?: { heldBy: string | null; blocked: boolean };
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
  const attributed = partner && !partner.archived && history.fraud?.blocked !== true ? partner : undefined;
  const commissions = attributed
    ? computeCommissions(settings, {
        amountMicros: sale.amountMicros,
        productId: sale.productId,
        productType: sale.productType,
        rewardable: sale.rewardable,
        rewarded: sale.rewarded,
        at: sale.at,
        customerSince: history.buyer.since,
        previousSales: history.buyer.salesBefore,
        hasParent: attributed.parentId !== null,
      }).map((commission) => ({
        ...commission,
        // A second-tier commission goes to the attributed partner's parent.
        partnerId: commission.role === 'tier2' ? attributed.parentId : attributed.id,
      }))
    : [];
  const rewards: RewardDecision[] = commissions.map((commission) => {
    const decided: RewardDecision = {
      partnerId: commission.partnerId,
      customerId: null,
      role: commission.role,
      status: guardedStatus(commission.status, history.buyer.selfReferral === true),
      amountMicros: BigInt(commission.amountMicros),
      units: currency,
      isCurrency: true,
      commissionType: commission.type,
      commissionValue: String(commission.value),
      availableAt: history.buyer.selfReferral === true ? null : commission.availableAt,
    };
    return held(decided, history.buyer.heldBy ?? history.fraud?.heldBy ?? null, sale.at);
  });
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

/**
 * A commission of a buyer with an open fraud flag stays pending and never comes due: no due date,
 * the one it would have had kept aside for when the flag is cleared (due at once when it would
 * have been approved at once). A sale already paid or rejected keeps its status.
 */
function held(reward: RewardDecision, flagId: string | null, saleAt: string): RewardDecision {
  if (flagId === null || (reward.status !== 'review_period' && reward.status !== 'ok')) return reward;
  return {
    ...reward,
    status: 'review_period',
    availableAt: null,
    fraudFlag: flagId,
    heldAvailableAt: reward.availableAt ?? saleAt,
  };
}
