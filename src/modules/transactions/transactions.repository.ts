import type { Insertable, Kysely, Updateable } from 'kysely';
import type { RewardsTable, TransactionsTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';

/** Transaction and reward queries both program types share; every one is scoped by the program. */

export async function findTransactionByKey(db: Kysely<DB>, programId: number, key: string) {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('program_id', '=', programId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function insertTransaction(db: Kysely<DB>, values: Insertable<TransactionsTable>) {
  return db.insertInto('transactions').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertRewards(db: Kysely<DB>, rows: Insertable<RewardsTable>[]) {
  if (rows.length === 0) return [];
  return db.insertInto('rewards').values(rows).returningAll().execute();
}

export async function listRewardsOf(db: Kysely<DB>, programId: number, transactionIds: readonly number[]) {
  if (transactionIds.length === 0) return [];
  return db
    .selectFrom('rewards')
    .selectAll()
    .where('program_id', '=', programId)
    .where('transaction_id', 'in', [...transactionIds])
    .orderBy('id', 'asc')
    .execute();
}

export async function updateTransaction(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<TransactionsTable>,
) {
  await db
    .updateTable('transactions')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .execute();
}

export async function deleteTransaction(db: Kysely<DB>, programId: number, id: number) {
  await db
    .deleteFrom('rewards')
    .where('program_id', '=', programId)
    .where('transaction_id', '=', id)
    .execute();
  await db.deleteFrom('transactions').where('program_id', '=', programId).where('id', '=', id).execute();
}

export interface TransactionListFilter {
  key?: string;
  customerId?: number;
  partnerId?: number;
  referringCustomerId?: number;
  includeArchived?: boolean;
}

export async function listTransactions(
  db: Kysely<DB>,
  programId: number,
  filter: TransactionListFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db.selectFrom('transactions').selectAll().where('program_id', '=', programId);
  if (filter.key !== undefined) query = query.where('key', '=', filter.key);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.referringCustomerId !== undefined)
    query = query.where('referring_customer_id', '=', filter.referringCustomerId);
  if (!filter.includeArchived) query = query.where('archived_at', 'is', null);
  return query.orderBy('id', sort).limit(window.fetch).offset(window.offset).execute();
}
