import { type Insertable, type Kysely, sql } from 'kysely';
import type { BalanceCreditsTable } from '../../db/domain-tables.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

const selectNonCurrencyRewards = definePreparedQuery<
  { amount: number; amount_units: string; commission_type: string; created_at: string },
  { programId: number; customerId: number; max: number }
>((db, param) =>
  db
    .selectFrom('rewards')
    .innerJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select(['rewards.amount', 'rewards.amount_units', 'rewards.commission_type', 'rewards.created_at'])
    .where('rewards.program_id', '=', param('programId'))
    .where('rewards.customer_id', '=', param('customerId'))
    .where('rewards.is_currency', '=', sql.lit(false))
    .where('rewards.status', '=', sql.lit('ok'))
    .where('rewards.deleted_at', 'is', null)
    .where('transactions.archived_at', 'is', null)
    .orderBy('rewards.id', 'asc')
    .limit(param('max')),
);

/** The non-currency rewards a customer holds: rewards of live (not archived) sales. */
export async function listNonCurrencyRewards(
  db: Kysely<DB>,
  programId: number,
  customerId: number,
  max: number,
) {
  return selectNonCurrencyRewards(db, { programId, customerId, max });
}

export async function insertBalanceCredit(db: Kysely<DB>, values: Insertable<BalanceCreditsTable>) {
  await db.insertInto('balance_credits').values(values).execute();
}
