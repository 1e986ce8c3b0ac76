import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';

/**
 * Commission rows (the `rewards` of affiliate sales) as far as their status moves are concerned;
 * every query is scoped by the program.
 */

/** A partner's commissions whose hold has ended (with whether their sale is archived). */
export async function listDueCommissions(db: Kysely<DB>, programId: number, partnerId: number, now: string) {
  return db
    .selectFrom('rewards')
    .innerJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select(['rewards.id', 'rewards.amount', 'rewards.amount_units', 'transactions.archived_at'])
    .where('rewards.program_id', '=', programId)
    .where('rewards.partner_id', '=', partnerId)
    .where('rewards.status', '=', 'review_period')
    .where('rewards.available_at', '<=', now)
    .execute();
}

export async function setRewardsStatus(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
  status: string,
) {
  if (ids.length === 0) return;
  await db
    .updateTable('rewards')
    .set({ status })
    .where('program_id', '=', programId)
    .where('id', 'in', ids)
    .execute();
}
