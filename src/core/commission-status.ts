import { countedStatus, partnerMetrics, type StoredRewardStatus } from './commissions.ts';
import type { FigureChange } from './sales.ts';
import { orderedFigures } from './sales.ts';

/**
 * The review of affiliate commissions: which status a commission shows, which moves a person (or
 * the hold, or a payout) may make, and what each move does to its partner's figures. Pure; the
 * commissions and payouts modules apply the decisions in one transaction.
 *
 * Stored statuses keep the names sales have always written (`review_period`, `ok`, `paid`), so
 * transactions show their rewards as before; the commission resource shows them as `pending`,
 * `approved`, `paid`, plus `denied` and `voided`.
 */

export const commissionStatuses = ['pending', 'approved', 'paid', 'denied', 'voided'] as const;
export type CommissionStatus = (typeof commissionStatuses)[number];

export const storedOfStatus = {
  pending: 'review_period',
  approved: 'ok',
  paid: 'paid',
  denied: 'denied',
  voided: 'voided',
} as const satisfies Record<CommissionStatus, StoredRewardStatus>;

// A self-referral's commission was refused when its sale was recorded: to a reviewer it is denied.
const shownOfStored = {
  review_period: 'pending',
  ok: 'approved',
  paid: 'paid',
  denied: 'denied',
  voided: 'voided',
  rejected: 'denied',
} as const satisfies Record<StoredRewardStatus, CommissionStatus>;

export interface CommissionState {
  status: string;
  /** End of the hold; null when it had none. */
  dueAt: string | null;
  /** Whether the commission sits in a payout that is not paid yet. */
  inPayout: boolean;
}

/** Whether a pending commission has reached the end of its hold. */
export function isDue(state: Pick<CommissionState, 'dueAt'>, now: string): boolean {
  return state.dueAt === null || state.dueAt <= now;
}

/**
 * The status a commission shows: a pending one whose hold has passed shows `approved` when the
 * program approves due commissions by itself, even before a read has settled it.
 */
export function shownCommissionStatus(
  state: Pick<CommissionState, 'status' | 'dueAt'>,
  now: string,
  autoApprove: boolean,
): CommissionStatus {
  if (state.status === 'review_period' && autoApprove && state.dueAt !== null && state.dueAt <= now)
    return 'approved';
  return shownOfStored[state.status as StoredRewardStatus] ?? 'pending';
}

/** What can happen to a commission. */
export type CommissionAction =
  /** A person approves it (bulk approve). */
  | 'approve'
  /** A person refuses it (bulk deny). */
  | 'deny'
  /** Its sale is gone or refunded in full before it was paid. */
  | 'void'
  /** Its hold passed and the program approves due commissions by itself. */
  | 'settle'
  /** The payout holding it was marked paid. */
  | 'pay';

export type CommissionMove =
  | { ok: true; to: StoredRewardStatus; changed: boolean }
  /** Refused: the commission `is <state> and cannot be <verb>` (the `commissionMove` rule). */
  | { ok: false; state: string; verb: string };

const refused = (state: string, verb: string): CommissionMove => ({ ok: false, state, verb });
const to = (from: string, next: StoredRewardStatus): CommissionMove => ({
  ok: true,
  to: next,
  changed: from !== next,
});

/**
 * The one table of status moves. Asking for the status a commission already has is not an error
 * (approving an approved commission changes nothing); a move out of `paid`, `denied` or `voided`
 * is refused, as is denying or voiding one that sits in a payout (cancel the payout first).
 */
export function moveCommission(
  state: CommissionState,
  action: CommissionAction,
  options: { now: string; autoApprove: boolean },
): CommissionMove {
  const from = state.status;
  const shown = shownOfStored[from as StoredRewardStatus] ?? from;
  switch (action) {
    case 'approve':
      if (from === 'review_period' || from === 'ok') return to(from, 'ok');
      return refused(shown, 'approved');
    case 'deny':
      if (from === 'denied') return to(from, 'denied');
      if (state.inPayout) return refused('in a payout', 'denied');
      if (from === 'review_period' || from === 'ok') return to(from, 'denied');
      return refused(shown, 'denied');
    case 'void':
      if (from === 'voided' || from === 'denied' || from === 'rejected') return to(from, from);
      if (state.inPayout) return refused('in a payout', 'voided');
      if (from === 'review_period' || from === 'ok') return to(from, 'voided');
      return refused(shown, 'voided');
    case 'settle':
      if (from === 'review_period' && options.autoApprove && isDue(state, options.now)) return to(from, 'ok');
      return to(from, from as StoredRewardStatus);
    case 'pay':
      if (from === 'ok') return to(from, 'paid');
      return refused(shown, 'paid');
  }
}

/**
 * What moving an amount from one status to another does to its partner's figures: out of the
 * figure of the old status, into the one of the new (denied and voided are in none). `counted`
 * is false for rewards of an archived sale, which are in no figure while archived.
 */
export function commissionMoveFigures(
  moves: readonly {
    partnerId: number;
    units: string;
    amountMicros: bigint;
    from: string;
    to: string;
    counted: boolean;
  }[],
): FigureChange[] {
  const changes: FigureChange[] = [];
  for (const move of moves) {
    if (!move.counted || move.from === move.to) continue;
    if (countedStatus(move.from))
      changes.push({
        kind: 'partner',
        id: move.partnerId,
        metric: partnerMetrics.commission(move.from, move.units),
        value: -move.amountMicros,
      });
    if (countedStatus(move.to))
      changes.push({
        kind: 'partner',
        id: move.partnerId,
        metric: partnerMetrics.commission(move.to, move.units),
        value: move.amountMicros,
      });
  }
  return orderedFigures(changes);
}

/** The figure a new commission (manual, or a clawback) adds to its partner. */
export function newCommissionFigures(
  partnerId: number,
  status: StoredRewardStatus,
  units: string,
  amountMicros: bigint,
): FigureChange[] {
  if (!countedStatus(status)) return [];
  return orderedFigures([
    { kind: 'partner', id: partnerId, metric: partnerMetrics.commission(status, units), value: amountMicros },
  ]);
}

/** The tier a commission row shows: 2 for the referring partner's share, 1 otherwise. */
export function commissionTier(role: string): 1 | 2 {
  return role === 'tier2' ? 2 : 1;
}
