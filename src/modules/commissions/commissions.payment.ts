/** What payouts do to commissions: claim the payable ones, release them, mark them paid. */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { commissionMoveFigures } from '../../core/commission-status.ts';
import { microsFrom } from '../../core/money.ts';
import type { FigureChange } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { eventsAreStored, recordEvents } from '../../outbox/outbox.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import * as repository from './commissions.repository.ts';
import { commissionOnWire } from './commissions.wire.ts';

/** Applies figure changes of commission moves in the caller's transaction (payouts, refunds). */
export async function applyCommissionFigures(trx: Kysely<DB>, programId: number, figures: FigureChange[]) {
  await addCounterDeltas(trx, programId, figures);
}

/**
 * Puts every approved, unpaid commission and clawback a payout may take now into payout
 * `payoutId` (one set-based update; see the repository). Answers how many it took.
 */
export async function claimPayableCommissions(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  claim: {
    payoutId: number;
    currency: string;
    partnerId?: number;
    approvedBy: string;
    minimumMicros: bigint;
  },
) {
  return repository.claimPayableCommissions(trx, ctx.program.id, { ...claim, now: nowTimestamp(ctx.clock) });
}

/**
 * Takes commissions back out of a payout, free for the next one: all of them (a cancelled payout)
 * or those of the partners a query names (partners the payout does not pay after all).
 */
export async function releaseCommissionsOfPayout(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  payoutId: number,
  // biome-ignore lint/suspicious/noExplicitAny: a one-column select of partner ids.
  partnerIds?: SelectQueryBuilder<DB, any, { partner_id: number | null }>,
) {
  await repository.releasePayoutCommissions(
    trx,
    ctx.program.id,
    payoutId,
    nowTimestamp(ctx.clock),
    partnerIds,
  );
}

/**
 * A payout marked paid: its commissions (and clawbacks) become paid, their amounts move to the
 * partners' paid figures, one `commission.paid` event each while events are stored (outbox.ts).
 * Set-based: one update, one sum per partner and currency for the figures, and the events read
 * and written a thousand at a time.
 */
export async function payCommissionsOfPayout(trx: Kysely<DB>, ctx: ProgramContext, payoutId: number) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const paid = await repository.payCommissionsOfPayout(trx, programId, payoutId, now);
  if (paid.length === 0) return;
  const sums = await repository.sumPaidCommissionsOfPayout(trx, programId, payoutId);
  await addCounterDeltas(
    trx,
    programId,
    commissionMoveFigures(
      sums.map((sum) => ({
        partnerId: Number(sum.partner_id),
        units: sum.amount_units,
        amountMicros: microsFrom(sum.amount),
        from: 'ok',
        to: 'paid',
        counted: Number(sum.counted) === 1,
      })),
    ),
  );
  // One `commission.paid` each, read back a thousand at a time: only when events are stored.
  if (!(await eventsAreStored(trx, programId))) return;
  const ids = paid.map((row) => Number(row.id)).sort((a, b) => a - b);
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await repository.listNamedCommissionsByIds(trx, programId, ids.slice(i, i + 1000));
    await recordEvents(
      trx,
      programId,
      'commission.paid',
      rows.map((row) => commissionOnWire(row, now, true)),
      now,
    );
  }
}
