/** Refer-a-friend reads of two owners at once (a customer and its referrer): links, figures, both records. */
import { type Kysely, type Selectable, sql } from 'kysely';
import { CounterFigures } from '../../db/counter-parts.ts';
import { isPostgres } from '../../db/counter-slots.ts';
import type { CustomersTable, ReferralLinksTable } from '../../db/domain-tables.ts';
import { definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { findCustomerById } from './customers.repository.ts';

export type TwoOwners = { programId: number; a: number; b: number };

/**
 * Two owners are read as two equality lookups, never `owner in (a, b)`: on PostgreSQL, while a
 * table's statistics still describe it as small (a new program, before autovacuum's analyze), the
 * planner scans every row of the program's prefix and filters on the second owner: 2–8 ms instead
 * of 0.05 ms with 5,000 figure rows, inside the sale's lock on its buyer.
 */
export const secondOwner = (param: ParamOf<TwoOwners>) => sql<boolean>`${param('b')} <> ${param('a')}`;

export const selectLinksOfTwo = definePreparedQuery<Selectable<ReferralLinksTable>, TwoOwners>(
  (db, param) => {
    const linksOf = (owner: 'a' | 'b') =>
      db
        .selectFrom('referral_links')
        .selectAll()
        .where('program_id', '=', param('programId'))
        .where('customer_id', '=', param(owner));
    return db
      .selectFrom(
        linksOf('a')
          .unionAll(linksOf('b').where(secondOwner(param)))
          .as('l'),
      )
      .selectAll()
      .orderBy('is_default', 'desc')
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc');
  },
);

export const selectCountersOfTwo = definePreparedQuery<
  { owner_id: number; metric: string; value: number | bigint; value_hi: number | bigint },
  TwoOwners
>((db, param) => {
  const countersOf = (owner: 'a' | 'b') =>
    db
      .selectFrom('entity_counters')
      .select(['owner_id', 'metric', 'value', 'value_hi'])
      .where('program_id', '=', param('programId'))
      .where('owner_kind', '=', sql.lit('customer'))
      .where('owner_id', '=', param(owner));
  return countersOf('a').unionAll(countersOf('b').where(secondOwner(param)));
});

export type CounterRow = {
  owner_id: number;
  metric: string;
  value: number | bigint;
  value_hi: number | bigint;
};

/** The figures of up to two customers, by customer id then metric (slots summed). */
export function figuresByOwner(rows: readonly CounterRow[], a: number, b: number) {
  return new Map([
    [a, CounterFigures.of(rows.filter((row) => Number(row.owner_id) === a))],
    [b, CounterFigures.of(rows.filter((row) => Number(row.owner_id) === b))],
  ]);
}

/**
 * PostgreSQL: the referrer's record, both customers' links and figures in one statement (one
 * round trip, one pooled connection, instead of three of each), each part as JSON. Every value in
 * these rows fits a double (ids, booleans, text; counter parts by design), so JSON keeps them.
 */
export const selectCustomerBundle = definePreparedQuery<
  {
    referrer: Selectable<CustomersTable> | null;
    links: Selectable<ReferralLinksTable>[];
    counters: [number, string, number, number][];
  },
  TwoOwners
>((db, param) =>
  db.selectNoFrom([
    sql<Selectable<CustomersTable> | null>`(select row_to_json(r) from customers r
      where r.program_id = ${param('programId')} and r.id = ${param('b')})`.as('referrer'),
    sql<
      Selectable<ReferralLinksTable>[]
    >`(select coalesce(json_agg(l order by l.is_default desc, l.created_at, l.id), '[]')
      from (select * from referral_links
              where program_id = ${param('programId')} and customer_id = ${param('a')}
            union all
            select * from referral_links
              where program_id = ${param('programId')} and customer_id = ${param('b')}
                and ${secondOwner(param)}) l)`.as('links'),
    sql<
      [number, string, number, number][]
    >`(select coalesce(json_agg(json_build_array(e.owner_id, e.metric, e.value, e.value_hi)), '[]')
      from (select * from entity_counters
              where program_id = ${param('programId')} and owner_kind = 'customer'
                and owner_id = ${param('a')}
            union all
            select * from entity_counters
              where program_id = ${param('programId')} and owner_kind = 'customer'
                and owner_id = ${param('b')} and ${secondOwner(param)}) e)`.as('counters'),
  ]),
);

/**
 * A customer's links and figures and its referrer's record, links and figures (`b`; pass the
 * customer's own id as `b` when it has no referrer): one statement on PostgreSQL, three parallel
 * reads on SQLite, where each is a synchronous call anyway.
 */
export async function customerBundle(db: Kysely<DB>, programId: number, a: number, b: number) {
  if (!isPostgres(db)) {
    const [referrer, links, counters] = await Promise.all([
      a === b ? undefined : findCustomerById(db, programId, b),
      linksOfCustomers(db, programId, a, b),
      countersOfCustomers(db, programId, a, b),
    ]);
    return { referrer, links, counters };
  }
  const [row] = await selectCustomerBundle(db, { programId, a, b });
  const counters = (row?.counters ?? []).map(([owner_id, metric, value, value_hi]) => ({
    owner_id,
    metric,
    value,
    value_hi,
  }));
  return {
    referrer: a === b ? undefined : (row?.referrer ?? undefined),
    links: row?.links ?? [],
    counters: figuresByOwner(counters, a, b),
  };
}

export async function linksOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  return selectLinksOfTwo(db, { programId, a, b });
}

/** Figures of up to two customers, by customer id then metric. */
export async function countersOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  return figuresByOwner(await selectCountersOfTwo(db, { programId, a, b }), a, b);
}
