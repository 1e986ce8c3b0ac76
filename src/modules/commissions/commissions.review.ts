import type { ProgramContext } from '../../context.ts';
import {
  type CommissionAction,
  commissionMoveFigures,
  moveCommission,
} from '../../core/commission-status.ts';
import type { StoredRewardStatus } from '../../core/commissions.ts';
import { type FieldProblem, problem, validationError } from '../../core/errors.ts';
import { microsFrom } from '../../core/money.ts';
import { nowTimestamp } from '../../core/time.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import type { CommissionRow } from './commissions.repository.ts';
import * as repository from './commissions.repository.ts';
import type { ReviewCommissionsBody } from './commissions.schemas.ts';
import { commissionSettings } from './commissions.settings.ts';
import { lockCommissions, settleDueCommissions } from './commissions.settle.ts';
import { serializeCommissions } from './commissions.wire.ts';

export const reviewEvent = { approve: 'commission.approved', deny: 'commission.denied' } as const;

/**
 * `POST /v1/commissions/approve` and `/deny`: every id moves, or none does. Each id that cannot
 * move (unknown, another program's, or in a status the move does not leave) is named in the 422
 * as `ids.N`.
 */
export async function reviewCommissions(
  ctx: ProgramContext,
  action: 'approve' | 'deny',
  body: ReviewCommissionsBody,
) {
  const programId = ctx.program.id;
  const seen = new Set<number>();
  const duplicates: FieldProblem[] = [];
  body.ids.forEach((id, index) => {
    if (seen.has(id)) duplicates.push(problem(`ids.${index}`, 'distinct'));
    seen.add(id);
  });
  if (duplicates.length > 0) throw validationError(duplicates);
  await settleDueCommissions(ctx);
  const { autoApprove } = await commissionSettings(ctx.database.db, programId);
  return ctx.database.db.transaction().execute(async (trx) => {
    await lockCommissions(trx, programId, body.ids);
    const now = nowTimestamp(ctx.clock);
    const rows = new Map(
      (await repository.findCommissionsByIds(trx, programId, body.ids)).map((row) => [Number(row.id), row]),
    );
    const sales = new Map(
      (
        await repository.findSaleKeys(
          trx,
          programId,
          [...rows.values()].flatMap((r) => (r.transaction_id === null ? [] : [Number(r.transaction_id)])),
        )
      ).map((s) => [Number(s.id), s]),
    );
    const errors: FieldProblem[] = [];
    const moves: { row: CommissionRow; to: StoredRewardStatus; changed: boolean }[] = [];
    body.ids.forEach((id, index) => {
      const row = rows.get(id);
      const field = `ids.${index}`;
      if (!row) {
        errors.push(problem(field, 'invalid'));
        return;
      }
      if (action === 'approve' && row.fraud_flag !== null && row.status === 'review_period') {
        errors.push(
          problem(
            field,
            'refused',
            `Commission ${id} is held by fraud flag ${row.fraud_flag}: clear or confirm the flag.`,
          ),
        );
        return;
      }
      const move = moveCommission(
        { status: row.status, dueAt: row.available_at, inPayout: row.payout_id !== null },
        action satisfies CommissionAction,
        { now, autoApprove },
      );
      if (!move.ok) errors.push(problem(field, 'commissionMove', id, move.state, move.verb));
      else moves.push({ row, to: move.to, changed: move.changed });
    });
    if (errors.length > 0) throw validationError(errors);
    const changed = moves.filter((m) => m.changed);
    const values =
      action === 'approve'
        ? { status: 'ok', approved_at: now, updated_at: now }
        : { status: 'denied', reason: body.reason ?? null, updated_at: now };
    await repository.setRewardsStatus(
      trx,
      programId,
      changed.map((m) => Number(m.row.id)),
      values,
    );
    await addCounterDeltas(
      trx,
      programId,
      commissionMoveFigures(
        changed.map((m) => ({
          partnerId: Number(m.row.partner_id),
          units: m.row.amount_units,
          amountMicros: microsFrom(m.row.amount),
          from: m.row.status,
          to: m.to,
          counted: isCounted(m.row, sales),
        })),
      ),
    );
    const after = await repository.findCommissionsByIds(trx, programId, body.ids);
    const byId = new Map(after.map((row) => [Number(row.id), row]));
    const data = await serializeCommissions(
      trx,
      ctx,
      // Every id was found and moved above, in this transaction.
      body.ids.flatMap((id) => byId.get(id) ?? []),
      autoApprove,
    );
    const changedIds = new Set(changed.map((m) => Number(m.row.id)));
    for (const commission of data)
      if (changedIds.has(commission.id))
        await recordEvent(trx, programId, reviewEvent[action], commission, now);
    return data;
  });
}

/** Rewards of an archived sale are in no figure while it is archived; clawback lines always are. */
export function isCounted(
  row: CommissionRow,
  sales: ReadonlyMap<number, { archived_at: string | null }>,
): boolean {
  if (row.transaction_id === null || row.role === 'clawback') return true;
  return sales.get(Number(row.transaction_id))?.archived_at == null;
}
