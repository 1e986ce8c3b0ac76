import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { isPostgres } from '../../db/counter-slots.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { CustomersTable } from '../../db/domain-tables.ts';
import { lowerEmail } from '../../db/email.ts';
import { definePreparedQuery, defineRowsInsert } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { bumpBuyerVersion } from '../counters/counters.figures.repository.ts';

/** Customer queries both program types share; every one is scoped by the program. */

export interface CustomerRef {
  id?: string | undefined;
  key?: string | undefined;
  email?: string | undefined;
}

type CustomerRow = Selectable<CustomersTable>;
const customerBy = <Value extends string | number>(
  column: 'public_id' | 'key' | 'email' | 'id',
  { lock = false } = {},
) =>
  definePreparedQuery<CustomerRow, { programId: number; value: Value }>((db, param) => {
    const query = db
      .selectFrom('customers')
      .selectAll()
      .where('program_id', '=', param('programId'))
      .where(
        column === 'email' ? lowerEmail('email') : sql.ref(column),
        '=',
        column === 'email' ? sql`lower(${param('value')})` : param('value'),
      );
    return lock && isPostgres(db) ? query.forUpdate() : query;
  });
const selectCustomerBy = {
  public_id: customerBy<string>('public_id'),
  key: customerBy<string>('key'),
  email: customerBy<string>('email'),
  id: customerBy<number>('id'),
};
const lockCustomerBy = {
  public_id: customerBy<string>('public_id', { lock: true }),
  key: customerBy<string>('key', { lock: true }),
  email: customerBy<string>('email', { lock: true }),
};

/**
 * The customer a sale names, its row locked until the transaction ends on PostgreSQL (SQLite has
 * one writer): the lookup and the lock in one round trip. Sales of one buyer wait for each other.
 */
export async function findCustomerByRefForUpdate(
  db: Kysely<DB>,
  programId: number,
  ref: CustomerRef,
): Promise<CustomerRow | undefined> {
  const column = ref.id !== undefined ? 'public_id' : ref.key !== undefined ? 'key' : 'email';
  const value = ref[column === 'public_id' ? 'id' : column];
  if (value === undefined) return undefined;
  return (await lockCustomerBy[column](db, { programId, value }))[0];
}

export async function findCustomerBy(
  db: Kysely<DB>,
  programId: number,
  column: 'public_id' | 'key' | 'email',
  value: string,
): Promise<CustomerRow | undefined> {
  return (await selectCustomerBy[column](db, { programId, value }))[0];
}

/**
 * Which business field of `row` another customer holds (`id`, `key`, then `email` in any case),
 * for a write that found one taken; undefined when none is.
 */
export async function takenCustomerField(
  db: Kysely<DB>,
  programId: number,
  row: Pick<CustomerRow, 'public_id' | 'key' | 'email'>,
): Promise<'id' | 'key' | 'email' | undefined> {
  if (await findCustomerBy(db, programId, 'public_id', row.public_id)) return 'id';
  if (row.key !== null && (await findCustomerBy(db, programId, 'key', row.key))) return 'key';
  if (row.email !== null && (await findCustomerBy(db, programId, 'email', row.email))) return 'email';
  return undefined;
}

export async function findCustomerById(db: Kysely<DB>, programId: number, id: number) {
  return (await selectCustomerBy.id(db, { programId, value: id }))[0];
}

export async function findCustomersByIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('customers')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', 'in', [...ids])
    .execute();
}

/** A new customer, or the business field whose value another customer holds (ADR 0053). */
export type CustomerInsert = { inserted: CustomerRow } | { taken: 'id' | 'key' | 'email' };

/**
 * Inserts unless a unique key (`public_id`, `key`, `email` in any case) holds the values: nothing
 * is raised in the database. PostgreSQL waits for a concurrent holder to commit before it skips,
 * so the look-up after it sees the holder.
 */
export async function insertCustomer(
  db: Kysely<DB>,
  values: Insertable<CustomersTable>,
): Promise<CustomerInsert> {
  const row = await db
    .insertInto('customers')
    .values(values)
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (row) return { inserted: row };
  const taken = await takenCustomerField(db, values.program_id, {
    public_id: values.public_id,
    key: values.key ?? null,
    email: values.email ?? null,
  });
  return { taken: taken ?? 'key' };
}

/** A customer row complete with its id (taken from the sequence beforehand) and every column. */
type FullCustomerRow = Selectable<CustomersTable>;

const customerColumns = [
  'id',
  'program_id',
  'public_id',
  'key',
  'email',
  'name',
  'surname',
  'tos',
  'approved',
  'status',
  'custom_fields',
  'metadata',
  'tags',
  'partner_id',
  'referral_link_id',
  'referring_customer_id',
  'self_referral',
  'created_at',
  'updated_at',
  'deleted_at',
  'sale_version',
] as const satisfies readonly (keyof FullCustomerRow)[];

/**
 * The insert of customers, every column given (so the rows a caller built are the rows stored),
 * not run: for a write of several statements in one (db/together.ts). No ON CONFLICT: a taken
 * `public_id`, `key` or `email` aborts the whole statement.
 */
export const customersInsertStatement = defineRowsInsert<FullCustomerRow>('customers', customerColumns);

/** A changed customer, or the business field whose new value another customer holds. */
export type CustomerUpdate = { updated: CustomerRow } | { taken: 'key' | 'email' };

/**
 * Changes a customer unless its new `key` or `email` (in any case) is another customer's: checked
 * first, in the caller's transaction, so the usual refusal raises nothing in the database (ADR
 * 0053).
 */
export async function updateCustomerUnlessTaken(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<CustomersTable>,
): Promise<CustomerUpdate> {
  for (const field of ['key', 'email'] as const) {
    const value = values[field];
    if (typeof value !== 'string') continue;
    const holder = await findCustomerBy(db, programId, field, value);
    if (holder && holder.id !== id) return { taken: field };
  }
  return { updated: await updateCustomer(db, programId, id, values) };
}

export async function updateCustomer(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<CustomersTable>,
) {
  return db
    .updateTable('customers')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteCustomer(db: Kysely<DB>, programId: number, id: number) {
  await db.deleteFrom('customers').where('program_id', '=', programId).where('id', '=', id).execute();
}

export interface CustomerListFilter {
  statuses?: readonly string[];
  partnerId?: number;
  referringCustomerId?: number;
  /** `true`: referred customers only; `false`: non-referred only (refer-a-friend). */
  referred?: boolean;
  publicId?: string;
  key?: string;
  email?: string;
}

/** One page plus one row, newest first unless `sort` says otherwise. */
export async function listCustomers(
  db: Kysely<DB>,
  programId: number,
  filter: CustomerListFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db.selectFrom('customers').selectAll().where('program_id', '=', programId);
  if (filter.statuses) query = query.where('status', 'in', [...filter.statuses]);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.referringCustomerId !== undefined)
    query = query.where('referring_customer_id', '=', filter.referringCustomerId);
  if (filter.referred === true) query = query.where('referring_customer_id', 'is not', null);
  if (filter.referred === false) query = query.where('referring_customer_id', 'is', null);
  if (filter.publicId !== undefined) query = query.where('public_id', '=', filter.publicId);
  if (filter.key !== undefined) query = query.where('key', '=', filter.key);
  if (filter.email !== undefined)
    query = query.where(lowerEmail('email'), '=', sql<string>`lower(${filter.email})`);
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

/**
 * Holds the customer's row until the end of the transaction (PostgreSQL) and moves its
 * `sale_version` on: a sale decided on the buyer's figures before this write then decides again
 * (migration 0023). A no-op on SQLite, whose write transaction already excludes every writer.
 */
export async function lockCustomer(db: Kysely<DB>, programId: number, id: number): Promise<void> {
  if (!isPostgres(db)) return;
  await bumpBuyerVersion(db, programId, id);
}

const selectLatestOfPartner = definePreparedQuery<
  { name: string | null; surname: string | null; email: string | null; created_at: string },
  { programId: number; partnerId: number; limit: number }
>((db, param) =>
  db
    .selectFrom('customers')
    .select(['name', 'surname', 'email', 'created_at'])
    .where('program_id', '=', param('programId'))
    .where('partner_id', '=', param('partnerId'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(param('limit')),
);

/** A partner's newest customers, only the columns a portal shows (index customers_partner). */
export function listLatestCustomersOfPartner(
  db: Kysely<DB>,
  programId: number,
  partnerId: number,
  limit: number,
) {
  return selectLatestOfPartner(db, { programId, partnerId, limit });
}

/** A customer's fraud hold passes from `from` to `to` (null: none); a customer held by another flag stays. */
export async function passCustomerHold(
  db: Kysely<DB>,
  programId: number,
  id: number,
  from: string,
  to: string | null,
) {
  await db
    .updateTable('customers')
    .set({ fraud_flag: to })
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where('fraud_flag', '=', from)
    .execute();
}
