import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { RewardsTable, TransactionsTable } from '../../db/domain-tables.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

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
] as const satisfies readonly (keyof Insertable<RewardsTable>)[];

type TransactionValues = Insertable<TransactionsTable>;
type RewardValues = Insertable<RewardsTable>;
/** A new sale or reward with every column given (null where empty): bound as it is. */
type NewTransaction = Required<Pick<TransactionValues, (typeof transactionColumns)[number]>>;
type NewReward = Required<Pick<RewardValues, (typeof rewardColumns)[number]>>;

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
  for (const values of rows) out.push((await insertRewardRow(db, values))[0]!);
  return out;
}

export async function listRewardsOf(db: Kysely<DB>, programId: number, transactionIds: readonly number[]) {
  if (transactionIds.length === 0) return [];
  if (transactionIds.length === 1)
    return selectRewardsOfOne(db, { programId, transactionId: transactionIds[0]! });
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
  await db
    .selectFrom('transactions')
    .select('id')
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .forUpdate()
    .execute();
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
