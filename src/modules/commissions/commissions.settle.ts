/** Due commissions become approved when the program approves them by itself; and the row lock every move takes. */
import type { Kysely } from 'kysely';
import type { Deps, ProgramContext } from '../../context.ts';
import { commissionMoveFigures } from '../../core/commission-status.ts';
import { microsFrom } from '../../core/money.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { nowTimestamp } from '../../core/time.ts';
import { inBatches, type SweepBounds, sweepBounds } from '../../db/in-batches.ts';
import { lockRows } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import { programsOfType } from '../program/program.service.ts';
import * as repository from './commissions.repository.ts';
import { commissionSettings } from './commissions.settings.ts';

/**
 * Commissions whose hold has passed become approved when the program approves them by itself:
 * of one partner (its figures are about to be read) or of the whole program (a list, a review or
 * a payout is about to read them). Answers whether anything moved.
 */
export async function settleDueCommissions(ctx: ProgramContext, partnerId?: number): Promise<boolean> {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const db = ctx.database.db;
  if (partnerId === undefined && !(await repository.hasDueCommissions(db, programId, now))) return false;
  if (
    partnerId !== undefined &&
    (await repository.listDueCommissions(db, programId, partnerId, now, 1)).length === 0
  )
    return false;
  const { autoApprove } = await commissionSettings(db, programId);
  if (!autoApprove) return false;
  await settleDueRows(ctx.database, programId, partnerId, now, 10_000);
  return true;
}

/**
 * The worker's step: due commissions of every affiliate program that approves by itself become
 * approved, `batch` rows a transaction (the write lock is held briefly) and at most `max` a pass,
 * so stored statuses catch up without anyone reading them. Answers how many moved.
 */
export async function settleDueCommissionsOfAllPrograms(
  deps: Deps,
  options: Partial<SweepBounds> = {},
): Promise<number> {
  const { batch, max } = sweepBounds(options);
  const db = deps.database.db;
  const now = nowTimestamp(deps.clock);
  let moved = 0;
  for await (const programs of programsOfType(db, 'affiliate')) {
    for (const program of programs) {
      if (programSettingsOf('affiliate', program.settings).commission_auto_approve === false) continue;
      const programId = Number(program.id);
      if (!(await repository.hasDueCommissions(db, programId, now))) continue;
      moved += await inBatches(
        async (limit) => {
          const step = await settleDueRows(deps.database, programId, undefined, now, limit);
          return { examined: step.examined, changed: step.moved };
        },
        { batch, max: max - moved },
      );
      if (moved >= max) return moved;
    }
  }
  return moved;
}

/** Settles up to `limit` due rows in one transaction: how many were read, and how many moved. */
export async function settleDueRows(
  database: Deps['database'],
  programId: number,
  partnerId: number | undefined,
  now: string,
  limit: number,
) {
  return database.db.transaction().execute(async (trx) => {
    const rows = await repository.listDueCommissions(trx, programId, partnerId, now, limit);
    if (rows.length === 0) return { examined: 0, moved: 0 };
    await lockCommissions(
      trx,
      programId,
      rows.map((r) => r.id),
    );
    // Another request may have settled some meanwhile: move only those still pending.
    const still = new Set(
      (
        await repository.findCommissionsByIds(
          trx,
          programId,
          rows.map((r) => r.id),
        )
      )
        .filter((row) => row.status === 'review_period')
        .map((row) => row.id),
    );
    const moving = rows.filter((row) => still.has(row.id));
    await repository.setRewardsStatus(
      trx,
      programId,
      moving.map((r) => r.id),
      { status: 'ok', approved_at: now, updated_at: now },
    );
    await addCounterDeltas(
      trx,
      programId,
      commissionMoveFigures(
        moving
          .filter((row) => row.partner_id !== null)
          .map((row) => ({
            partnerId: Number(row.partner_id),
            units: row.amount_units,
            amountMicros: microsFrom(row.amount),
            from: 'review_period',
            to: 'ok',
            counted: row.archived_at === null,
          })),
      ),
    );
    return { examined: rows.length, moved: moving.length };
  });
}

/** Holds the commissions' rows until the transaction ends (a no-op on SQLite's single writer). */
export async function lockCommissions(trx: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return;
  await lockRows(
    trx,
    trx
      .selectFrom('rewards')
      .select('id')
      .where('program_id', '=', programId)
      .where('id', 'in', [...ids])
      .orderBy('id'),
  );
}
