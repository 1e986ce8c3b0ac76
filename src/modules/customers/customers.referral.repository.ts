import { type Kysely, type Selectable, sql } from 'kysely';
import { isPostgres } from '../../db/counter-slots.ts';
import type { CustomersTable } from '../../db/domain-tables.ts';
import { lowerEmail } from '../../db/email.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Hot-path reads of refer-a-friend customers, compiled once: a customer record needs the links
 * and figures of the customer and of its referrer, read two owners at a time (pass the same id
 * twice for a customer without a referrer).
 */

type BuyerRow = Selectable<CustomersTable> & {
  referrer_public_id: string | null;
  /** PostgreSQL, for a sale (`findCustomerWithReferrerForUpdate`): the program's settings (JSON text). */
  program_settings?: string;
  /** PostgreSQL, for a sale: the buyer's figures (metric, low part, high part), one per slot. */
  figures?: [string, number, number][];
};

const buyerBy = (column: 'public_id' | 'key' | 'email', { lock = false } = {}) =>
  definePreparedQuery<BuyerRow, { programId: number; value: string }>((db, param) => {
    const query = db
      .selectFrom('customers as c')
      .leftJoin('customers as r', 'r.id', 'c.referring_customer_id')
      .selectAll('c')
      .select('r.public_id as referrer_public_id')
      .where('c.program_id', '=', param('programId'))
      .where(
        column === 'email' ? lowerEmail('c.email') : sql.ref(`c.${column}`),
        '=',
        column === 'email' ? sql`lower(${param('value')})` : param('value'),
      );
    if (!lock || !isPostgres(db)) return query;
    // A sale's other reads in the same round trip: the program's settings and the buyer's figures.
    return query
      .select([
        sql<string>`(select settings from programs where id = ${param('programId')})`.as('program_settings'),
        sql<[string, number, number][]>`(select coalesce(json_agg(json_build_array(e.metric, e.value,
          e.value_hi)), '[]') from entity_counters e where e.program_id = ${param('programId')}
          and e.owner_kind = 'customer' and e.owner_id = c.id)`.as('figures'),
      ])
      .forUpdate('c');
  });

const selectBuyerBy = { public_id: buyerBy('public_id'), key: buyerBy('key'), email: buyerBy('email') };

const lockBuyerBy = {
  public_id: buyerBy('public_id', { lock: true }),
  key: buyerBy('key', { lock: true }),
  email: buyerBy('email', { lock: true }),
};

/** A customer named by `id`, `key` or `email` (the first given), with its referrer's public id. */
export async function findCustomerWithReferrer(
  db: Kysely<DB>,
  programId: number,
  ref: { id?: string | undefined; key?: string | undefined; email?: string | undefined },
) {
  if (ref.id !== undefined) return (await selectBuyerBy.public_id(db, { programId, value: ref.id }))[0];
  if (ref.key !== undefined) return (await selectBuyerBy.key(db, { programId, value: ref.key }))[0];
  if (ref.email !== undefined) return (await selectBuyerBy.email(db, { programId, value: ref.email }))[0];
  return undefined;
}

/**
 * `findCustomerWithReferrer` for a sale: the buyer's row stays locked until the transaction ends
 * on PostgreSQL (SQLite has one writer), taken in the lookup's round trip, which there also
 * answers the program's settings and the buyer's figures (`program_settings`, `figures`).
 */
export async function findCustomerWithReferrerForUpdate(
  db: Kysely<DB>,
  programId: number,
  ref: { id?: string | undefined; key?: string | undefined; email?: string | undefined },
) {
  if (ref.id !== undefined) return (await lockBuyerBy.public_id(db, { programId, value: ref.id }))[0];
  if (ref.key !== undefined) return (await lockBuyerBy.key(db, { programId, value: ref.key }))[0];
  if (ref.email !== undefined) return (await lockBuyerBy.email(db, { programId, value: ref.email }))[0];
  return undefined;
}

export {
  type CustomerRecordRead,
  type CustomerRecordRow,
  findCustomerRecordByPath,
} from './customers.records.repository.ts';
export { readForSignup, type SignupRead } from './customers.signup-reads.repository.ts';
export { countersOfCustomers, customerBundle, linksOfCustomers } from './customers.two-owners.repository.ts';
