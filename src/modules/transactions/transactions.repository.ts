import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { present } from '../../core/present.ts';
import { isPostgres } from '../../db/counter-slots.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { RewardsTable, TransactionsTable } from '../../db/domain-tables.ts';
import { lockRows } from '../../db/locks.ts';
import { nextId } from '../../db/next-id.ts';
import { definePreparedQuery, defineRowsInsert } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

export { executeGated, NotWrittenError } from '../../db/gated.ts';
export { executeTogether } from '../../db/together.ts';

const selectTransactionByKey = definePreparedQuery<
  Selectable<TransactionsTable>,
  { programId: number; key: string }
>((db, param) =>
  db
    .selectFrom('transactions')
    .selectAll()
    .where('program_id', '=', param('programId'))
    .where('key', '=', param('key')),
);

const selectRewardsOfOne = definePreparedQuery<
  Selectable<RewardsTable>,
  { programId: number; transactionId: number }
>((db, param) =>
  db
    .selectFrom('rewards')
    .selectAll()
    .where('program_id', '=', param('programId'))
    .where('transaction_id', '=', param('transactionId'))
    .orderBy('id', 'asc'),
);

/** Transaction and reward queries both program types share; every one is scoped by the program. */

export async function findTransactionByKey(db: Kysely<DB>, programId: number, key: string) {
  return (await selectTransactionByKey(db, { programId, key }))[0];
}

const transactionColumns = [
  'program_id',
  'key',
  'customer_id',
  'customer_key',
  'partner_id',
  'referring_customer_id',
  'action',
  'amount',
  'amount_units',
  'is_currency',
  'credit',
  'rewarded',
  'rewardable',
  'product_id',
  'product_type',
  'request_digest',
  'archived_at',
  'created_at',
  'deleted_at',
] as const satisfies readonly (keyof Insertable<TransactionsTable>)[];

const rewardColumns = [
  'program_id',
  'transaction_id',
  'partner_id',
  'customer_id',
  'role',
  'status',
  'amount',
  'amount_units',
  'is_currency',
  'credit',
  'commission_type',
  'commission_value',
  'product_id',
  'product_type',
  'available_at',
  'created_at',
  'deleted_at',
  'fraud_flag',
  'held_available_at',
] as const satisfies readonly (keyof Insertable<RewardsTable>)[];

type TransactionValues = Insertable<TransactionsTable>;

type RewardValues = Insertable<RewardsTable>;

/** A new sale or reward with every column given (null where empty): bound as it is. */
export type NewTransaction = Required<Pick<TransactionValues, (typeof transactionColumns)[number]>>;

export type NewReward = Required<Pick<RewardValues, (typeof rewardColumns)[number]>>;

/** A row's columns as named parameters: `{ program_id: param('program_id'), … }`. */
function namedValues<Values>(
  columns: readonly (keyof Values & string)[],
  param: (name: keyof Values & string) => unknown,
): Values {
  return Object.fromEntries(columns.map((column) => [column, param(column)])) as Values;
}

/**
 * Insert-or-replay: the sale is inserted unless its key is taken, in one statement. A request
 * that loses a race on the key waits for the winner's commit (PostgreSQL) and gets no row, then
 * compares itself with the stored sale.
 */
const insertSaleRowQuery = definePreparedQuery<Selectable<TransactionsTable>, NewTransaction>((db, param) =>
  db
    .insertInto('transactions')
    .values(namedValues<TransactionValues>(transactionColumns, param as never))
    .onConflict((oc) => oc.columns(['program_id', 'key']).doNothing())
    .returningAll(),
);

const insertRewardRow = definePreparedQuery<Selectable<RewardsTable>, NewReward>((db, param) =>
  db
    .insertInto('rewards')
    .values(namedValues<RewardValues>(rewardColumns, param as never))
    .returningAll(),
);

/** The stored sale, or `undefined` when another sale already has its key. Every column is given. */
export async function insertSaleRow(db: Kysely<DB>, values: NewTransaction) {
  const [row] = await insertSaleRowQuery(db, values);
  return row;
}

export async function insertRewards(db: Kysely<DB>, rows: NewReward[]) {
  const out: Selectable<RewardsTable>[] = [];
  for (const values of rows) out.push(present((await insertRewardRow(db, values))[0], 'the inserted reward'));
  return out;
}

/**
 * PostgreSQL: the sale's insert also takes the ids its rewards will have, from the rewards'
 * identity sequence, so the rewards can be written with the sale's other writes in one statement
 * (db/together.ts) while the events that name them are already built.
 */
const insertSaleTakingIds = definePreparedQuery<
  Selectable<TransactionsTable> & { reward_ids: (number | string)[] },
  NewTransaction & { rewardCount: number }
>((db, param) =>
  db
    .insertInto('transactions')
    .values(namedValues<TransactionValues>(transactionColumns, param as never))
    .onConflict((oc) => oc.columns(['program_id', 'key']).doNothing())
    .returningAll()
    .returning(
      sql<(number | string)[]>`array(select ${nextId('rewards')}
        from generate_series(1, ${param('rewardCount')}::int))`.as('reward_ids'),
    ),
);

/** A sale row and, on PostgreSQL, the ids of its `rewardCount` rewards (undefined on SQLite). */
export async function insertSale(db: Kysely<DB>, values: NewTransaction, rewardCount: number) {
  if (!isPostgres(db) || rewardCount === 0)
    return { row: await insertSaleRow(db, values), rewardIds: undefined };
  const [inserted] = await insertSaleTakingIds(db, { ...values, rewardCount });
  if (!inserted) return { row: undefined, rewardIds: undefined };
  const { reward_ids, ...row } = inserted;
  return { row, rewardIds: reward_ids.map(Number) };
}

/** Sales with their ids taken beforehand, for the one-statement write. */
export const salesStatement = defineRowsInsert<NewTransaction & { id: number }>('transactions', [
  'id',
  ...transactionColumns,
]);

/** Rewards of every column, written as one statement with a sale's other writes. */
export const rewardsStatement = defineRowsInsert<Selectable<RewardsTable>>('rewards', [
  'id',
  ...rewardColumns,
]);

export async function listRewardsOf(db: Kysely<DB>, programId: number, transactionIds: readonly number[]) {
  const [transactionId, ...others] = transactionIds;
  if (transactionId === undefined) return [];
  if (others.length === 0) return selectRewardsOfOne(db, { programId, transactionId });
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
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

/** Every transaction of one buyer, archived ones included (a customer delete takes them all). */
export async function listTransactionsOfBuyer(db: Kysely<DB>, programId: number, customerId: number) {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('program_id', '=', programId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
}

/** A buyer's new key, on every sale it made (the sales keep it: migration 0043). */
export async function setBuyerKeyOfSales(db: Kysely<DB>, programId: number, customerId: number, key: string) {
  await db
    .updateTable('transactions')
    .set({ customer_key: key })
    .where('program_id', '=', programId)
    .where('customer_id', '=', customerId)
    .execute();
}

/** A customer's live transactions as buyer or as referrer, newest first. */
export async function listTransactionsInvolving(
  db: Kysely<DB>,
  programId: number,
  customerId: number,
  window: { offset: number; fetch: number },
) {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('program_id', '=', programId)
    .where((eb) => eb.or([eb('customer_id', '=', customerId), eb('referring_customer_id', '=', customerId)]))
    .where('archived_at', 'is', null)
    .$call(pageInCreationOrder('desc', window))
    .execute();
}

/** Holds the sale's row until the end of the transaction (PostgreSQL): refunds of one sale queue. */
export async function lockTransaction(db: Kysely<DB>, programId: number, id: number) {
  await lockRows(
    db,
    db.selectFrom('transactions').select('id').where('program_id', '=', programId).where('id', '=', id),
  );
}

export async function updateReward(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<RewardsTable>,
) {
  await db
    .updateTable('rewards')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .execute();
}

export {
  type AffiliateBuyerForSale,
  type AffiliateBuyerRead,
  findAffiliateBuyerForSale,
  type ReferralBuyerRead,
  readAffiliateBuyerForSale,
  readReferralBuyerForSale,
  takeRewardIds,
} from './transactions.buyers.repository.ts';
