import type { Micros } from './money.ts';

/**
 * Stripe reports refunds cumulatively: each `charge.refunded` carries everything refunded on the
 * charge so far (`amount_refunded`) beside what was charged (`amount`). A sale records what was
 * paid without tax, which may be less than the charge, so the refunded share of the sale is the
 * refunded share of the charge: `sale × refunded / charged`, rounded down to a micro-unit, and all
 * of the sale once the charge is refunded in full. Each event refunds only the difference to what
 * earlier events already refunded, so partial refunds add up to the sale exactly, in any order,
 * and a redelivered or older event refunds nothing.
 */
export interface CumulativeRefund {
  saleMicros: Micros;
  /** What refunds of this charge have already taken from the sale. */
  refundedBeforeMicros: Micros;
  chargedMinor: bigint;
  refundedMinor: bigint;
}

/** The share of the sale refunded once `refundedMinor` of the charge is refunded. */
export function refundedShareOfSale(sale: Micros, chargedMinor: bigint, refundedMinor: bigint): Micros {
  if (chargedMinor <= 0n || refundedMinor >= chargedMinor) return sale;
  if (refundedMinor <= 0n) return 0n;
  return (sale * refundedMinor) / chargedMinor;
}

/** What this event refunds now: never negative, never beyond the sale. */
export function cumulativeRefundDelta(refund: CumulativeRefund): {
  deltaMicros: Micros;
  refundedAfter: Micros;
} {
  const target = refundedShareOfSale(refund.saleMicros, refund.chargedMinor, refund.refundedMinor);
  if (target <= refund.refundedBeforeMicros) {
    return { deltaMicros: 0n, refundedAfter: refund.refundedBeforeMicros };
  }
  return { deltaMicros: target - refund.refundedBeforeMicros, refundedAfter: target };
}

/** A refund of a given amount (a lost dispute: the rest; a Paddle adjustment: its amount), capped at what is left. */
export function boundedRefundDelta(
  saleMicros: Micros,
  refundedBeforeMicros: Micros,
  requestedMicros: Micros,
): { deltaMicros: Micros; refundedAfter: Micros } {
  const left = saleMicros - refundedBeforeMicros;
  const delta = requestedMicros < left ? requestedMicros : left;
  if (delta <= 0n) return { deltaMicros: 0n, refundedAfter: refundedBeforeMicros };
  return { deltaMicros: delta, refundedAfter: refundedBeforeMicros + delta };
}
