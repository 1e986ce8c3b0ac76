import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { microsFrom } from '../../core/money.ts';
import { settledCommissionFigures } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import * as repository from './commissions.repository.ts';

/**
 * Status moves of affiliate commissions. Partners read their figures through here, so a
 * commission whose hold has passed is settled before it is shown.
 */

/**
 * Rewards of a partner whose hold has passed become `ok`, moving their amounts from pending to
 * not paid. Run when the partner's figures are read; answers whether anything moved.
 */
export async function settleDueCommissions(ctx: ProgramContext, partnerId: number): Promise<boolean> {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const due = (db: Kysely<DB>) => repository.listDueCommissions(db, programId, partnerId, now);
  if ((await due(ctx.database.db)).length === 0) return false;
  await ctx.database.db.transaction().execute(async (trx) => {
    const rows = await due(trx);
    if (rows.length === 0) return;
    await repository.setRewardsStatus(
      trx,
      programId,
      rows.map((r) => r.id),
      'ok',
    );
    const settled = rows.filter((row) => row.archived_at === null);
    const entities = settledCommissionFigures(
      partnerId,
      settled.map((row) => ({ amountMicros: microsFrom(row.amount), units: row.amount_units })),
    );
    await addCounterDeltas(trx, programId, entities);
  });
  return true;
}
