import type { Insertable, Kysely } from 'kysely';
import type { BalanceCreditsTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';

/** The non-currency rewards a customer holds: rewards of live (not archived) sales. */
export async function listNonCurrencyRewards(
  db: Kysely<DB>,
  programId: number,
  customerId: number,
  max: number,
) {
  return db
    .selectFrom('rewards')
    .innerJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select(['rewards.amount', 'rewards.amount_units', 'rewards.commission_type', 'rewards.created_at'])
    .where('rewards.program_id', '=', programId)
    .where('rewards.customer_id', '=', customerId)
    .where('rewards.is_currency', '=', false)
    .where('rewards.status', '=', 'ok')
    .where('rewards.deleted_at', 'is', null)
    .where('transactions.archived_at', 'is', null)
    .orderBy('rewards.id', 'asc')
    .limit(max)
    .execute();
}

export async function insertBalanceCredit(db: Kysely<DB>, values: Insertable<BalanceCreditsTable>) {
  await db.insertInto('balance_credits').values(values).execute();
}
