import { type Kysely, type Selectable, sql } from 'kysely';
import { CounterFigures } from '../../db/counter-parts.ts';
import type { CustomersTable, ReferralLinksTable } from '../../db/domain-tables.ts';
import { lowerEmail } from '../../db/email.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Hot-path reads of refer-a-friend customers, compiled once: a customer record needs the links
 * and figures of the customer and of its referrer, read two owners at a time (pass the same id
 * twice for a customer without a referrer).
 */

type TwoOwners = { programId: number; a: number; b: number };

const selectLinksOfTwo = definePreparedQuery<Selectable<ReferralLinksTable>, TwoOwners>((db, param) =>
  db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', param('programId'))
    .where('customer_id', 'in', [param('a'), param('b')])
    .orderBy('is_default', 'desc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc'),
);

const selectCountersOfTwo = definePreparedQuery<
  { owner_id: number; metric: string; value: number | bigint; value_hi: number | bigint },
  TwoOwners
>((db, param) =>
  db
    .selectFrom('entity_counters')
    .select(['owner_id', 'metric', 'value', 'value_hi'])
    .where('program_id', '=', param('programId'))
    .where('owner_kind', '=', sql.lit('customer'))
    .where('owner_id', 'in', [param('a'), param('b')]),
);

export async function linksOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  return selectLinksOfTwo(db, { programId, a, b });
}

/** Figures of up to two customers, by customer id then metric. */
export async function countersOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  const rows = await selectCountersOfTwo(db, { programId, a, b });
  return new Map([
    [a, CounterFigures.of(rows.filter((row) => Number(row.owner_id) === a))],
    [b, CounterFigures.of(rows.filter((row) => Number(row.owner_id) === b))],
  ]);
}

const buyerBy = (column: 'public_id' | 'key' | 'email') =>
  definePreparedQuery<
    Selectable<CustomersTable> & { referrer_public_id: string | null },
    { programId: number; value: string }
  >((db, param) =>
    db
      .selectFrom('customers as c')
      .leftJoin('customers as r', 'r.id', 'c.referring_customer_id')
      .selectAll('c')
      .select('r.public_id as referrer_public_id')
      .where('c.program_id', '=', param('programId'))
      .where(
        column === 'email' ? lowerEmail('c.email') : sql.ref(`c.${column}`),
        '=',
        column === 'email' ? sql`lower(${param('value')})` : param('value'),
      ),
  );
const selectBuyerBy = { public_id: buyerBy('public_id'), key: buyerBy('key'), email: buyerBy('email') };

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
