import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { RewardsTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Commission rows (the `rewards` of an affiliate program, plus manual commissions and clawbacks);
 * every query is scoped by the program.
 */

export type CommissionRow = Selectable<RewardsTable>;

// A literal, not a parameter: the planners use the partial `rewards_due` index only when the
// query's condition visibly implies the index's `status = 'review_period'`.
const IN_REVIEW = sql<string>`'review_period'`;

/** Due commissions (their hold has ended), of one partner or of the whole program, with whether their sale is archived. */
export async function listDueCommissions(
  db: Kysely<DB>,
  programId: number,
  partnerId: number | undefined,
  now: string,
  limit = 10_000,
) {
  let query = db
    .selectFrom('rewards')
    .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select([
      'rewards.id',
      'rewards.partner_id',
      'rewards.amount',
      'rewards.amount_units',
      'transactions.archived_at',
    ])
    .where('rewards.program_id', '=', programId)
    .where('rewards.status', '=', IN_REVIEW)
    .where('rewards.available_at', '<=', now);
  if (partnerId !== undefined) query = query.where('rewards.partner_id', '=', partnerId);
  return query.limit(limit).execute();
}

/** Whether the program has a commission whose hold has ended and that is still pending. */
export async function hasDueCommissions(db: Kysely<DB>, programId: number, now: string) {
  const row = await db
    .selectFrom('rewards')
    .select('id')
    .where('program_id', '=', programId)
    .where('status', '=', IN_REVIEW)
    .where('available_at', '<=', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function setRewardsStatus(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
  values: Updateable<RewardsTable>,
) {
  if (ids.length === 0) return;
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('rewards')
      .set(values)
      .where('program_id', '=', programId)
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}

export interface CommissionListFilter {
  partnerId?: number;
  statuses?: string[];
  transactionId?: number;
  currency?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** A page of an affiliate program's commissions, in creation order. */
export async function listCommissions(
  db: Kysely<DB>,
  programId: number,
  filter: CommissionListFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  // Every reward of an affiliate program has a partner: no condition on it, so a page walks
  // the (program_id, …, created_at, id) index alone.
  let query = db.selectFrom('rewards').selectAll().where('program_id', '=', programId);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.statuses !== undefined) query = query.where('status', 'in', filter.statuses);
  if (filter.transactionId !== undefined) query = query.where('transaction_id', '=', filter.transactionId);
  if (filter.currency !== undefined) query = query.where('amount_units', '=', filter.currency);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

export async function findCommissionsByIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  // Scoped, but looked up by id: see findSaleKeys.
  return db
    .selectFrom('rewards')
    .selectAll()
    .where(sql<number>`+${sql.ref('program_id')}`, '=', programId)
    .where('partner_id', 'is not', null)
    .where('id', 'in', [...ids])
    .execute();
}

/** Keys of the sales and buyers the commissions name. */
export async function findSaleKeys(db: Kysely<DB>, programId: number, transactionIds: readonly number[]) {
  if (transactionIds.length === 0) return [];
  return (
    db
      .selectFrom('transactions')
      .innerJoin('customers', 'customers.id', 'transactions.customer_id')
      .select([
        'transactions.id',
        'transactions.key',
        'transactions.archived_at',
        'customers.key as customer_key',
      ])
      // `+program_id`: still scoped, but not an index the planner would walk instead of the ids
      // (SQLite took the program's creation-order index and scanned every sale of the program).
      .where(sql<number>`+${sql.ref('transactions.program_id')}`, '=', programId)
      .where('transactions.id', 'in', [...transactionIds])
      .execute()
  );
}

export async function findSaleByKey(db: Kysely<DB>, programId: number, key: string) {
  return db
    .selectFrom('transactions')
    .select(['id', 'archived_at'])
    .where('program_id', '=', programId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Public ids of the payouts the commissions sit in. */
export async function findPayoutIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('payouts')
    .select(['id', 'public_id', 'status'])
    .where('program_id', '=', programId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function insertCommission(db: Kysely<DB>, values: Insertable<RewardsTable>) {
  return db.insertInto('rewards').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Approved, unpaid commissions and clawbacks of one currency that a payout may take: not in a
 * payout, not of an archived sale, approved by `approvedBy`. Locked on PostgreSQL (`lock`): a
 * concurrent deny, refund or payout waits, then finds them moved.
 */
export async function listPayableCommissions(
  db: Kysely<DB>,
  programId: number,
  filter: { currency: string; partnerId?: number; approvedBy: string; lock: boolean },
) {
  let query = db
    .selectFrom('rewards')
    .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select(['rewards.id', 'rewards.partner_id', 'rewards.amount'])
    .where('rewards.program_id', '=', programId)
    .where('rewards.status', '=', 'ok')
    .where('rewards.payout_id', 'is', null)
    .where('rewards.partner_id', 'is not', null)
    .where('rewards.amount_units', '=', filter.currency)
    .where('transactions.archived_at', 'is', null)
    .where(
      sql<string>`coalesce(rewards.approved_at, rewards.available_at, rewards.created_at)`,
      '<=',
      filter.approvedBy,
    );
  if (filter.partnerId !== undefined) query = query.where('rewards.partner_id', '=', filter.partnerId);
  if (filter.lock) query = query.forUpdate('rewards');
  return query.execute();
}

/** Commissions of one payout, with whether their sale is archived. */
export async function listCommissionsOfPayout(db: Kysely<DB>, programId: number, payoutId: number) {
  return db
    .selectFrom('rewards')
    .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .selectAll('rewards')
    .select('transactions.archived_at')
    .where('rewards.program_id', '=', programId)
    .where('rewards.payout_id', '=', payoutId)
    .orderBy('rewards.id')
    .execute();
}

/** Every commission row of one sale. */
export async function listCommissionsOfSale(db: Kysely<DB>, programId: number, transactionId: number) {
  return db
    .selectFrom('rewards')
    .selectAll()
    .where('program_id', '=', programId)
    .where('transaction_id', '=', transactionId)
    .where('partner_id', 'is not', null)
    .orderBy('id')
    .execute();
}
