/**
 * Commission rows (the `rewards` of an affiliate program, plus manual commissions and clawbacks);
 * every query is scoped by the program. The list and the rows payouts move have files of their own.
 */
import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { RewardsTable } from '../../db/domain-tables.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { IN_REVIEW } from './commissions.list.repository.ts';

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

const selectLatestOfPartner = definePreparedQuery<
  Pick<
    Selectable<RewardsTable>,
    'id' | 'role' | 'amount' | 'amount_units' | 'status' | 'available_at' | 'created_at' | 'fraud_flag'
  >,
  { programId: number; partnerId: number; limit: number }
>((db, param) =>
  db
    .selectFrom('rewards')
    .select(['id', 'role', 'amount', 'amount_units', 'status', 'available_at', 'created_at', 'fraud_flag'])
    .where('program_id', '=', param('programId'))
    .where('partner_id', '=', param('partnerId'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(param('limit')),
);

/** A partner's newest commissions, the few columns a portal shows (index rewards_partner_created). */
export function listLatestCommissionsOfPartner(
  db: Kysely<DB>,
  programId: number,
  partnerId: number,
  limit: number,
) {
  return selectLatestOfPartner(db, { programId, partnerId, limit });
}

export {
  type CommissionListFilter,
  type CommissionRow,
  listCommissions,
  listNamedCommissionsByIds,
  type NamedCommissionRow,
} from './commissions.list.repository.ts';
export {
  claimPayableCommissions,
  payCommissionsOfPayout,
  releasePayoutCommissions,
  sumPaidCommissionsOfPayout,
} from './commissions.payment.repository.ts';

/** Commissions an open fraud flag holds (still pending), for its review. */
export async function findHeldCommissions(db: Kysely<DB>, programId: number, flag: string) {
  return db
    .selectFrom('rewards')
    .selectAll()
    .where('program_id', '=', programId)
    .where('fraud_flag', '=', flag)
    .where('status', '=', 'review_period')
    .execute();
}

/** The held commissions pass to another open flag of the same customer. */
export async function passHold(db: Kysely<DB>, programId: number, from: string, to: string) {
  await db
    .updateTable('rewards')
    .set({ fraud_flag: to })
    .where('program_id', '=', programId)
    .where('fraud_flag', '=', from)
    .execute();
}

/** The held commissions get back the due date they had: the normal rules apply again. */
export async function releaseHold(db: Kysely<DB>, programId: number, flag: string, now: string) {
  await db
    .updateTable('rewards')
    .set((eb) => ({
      available_at: eb.ref('held_available_at'),
      held_available_at: null,
      fraud_flag: null,
      updated_at: now,
    }))
    .where('program_id', '=', programId)
    .where('fraud_flag', '=', flag)
    .execute();
}
