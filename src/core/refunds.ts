import { affiliateSaleFigures } from './affiliate-sales.ts';
import { partnerMetrics } from './commissions.ts';
import { divideRoundingHalfUp as divideHalfUp } from './money.ts';
import { referralSaleFigures } from './referral-sales.ts';
import { figure, orderedFigures, type SaleFigures } from './sale-figures.ts';

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
