/** A refer-a-friend customer's record read by its path segment, reads arriving together coalesced into one statement (PostgreSQL). */
import { type Kysely, type Selectable, sql } from 'kysely';
import { coalescerPerDatabase } from '../../db/coalescer.ts';
import { isPostgres } from '../../db/counter-slots.ts';
import type { CustomersTable, ReferralLinksTable } from '../../db/domain-tables.ts';
import { definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { findCustomerBy } from './customers.repository.ts';
import { customerBundle, figuresByOwner } from './customers.two-owners.repository.ts';

/** A customer row as `row_to_json` answers it (every value fits a double: ids, booleans, text). */
export type CustomerJson = Selectable<CustomersTable>;

export type LinkJson = Selectable<ReferralLinksTable>;

/** The program's website and settings, which a record's link URLs are built from. */
export const programLinkReads = (param: ParamOf<{ programId: number }>) =>
  [
    sql<string | null>`(select website from programs where id = ${param('programId')})`.as('program_website'),
    sql<string>`(select settings from programs where id = ${param('programId')})`.as('program_settings'),
  ] as const;

/** A customer read with what its record shows (PostgreSQL, `findCustomerRecordByPath`). */
export type CustomerRecordRow = Selectable<CustomersTable> & {
  referrer: CustomerJson | null;
  /** The links of the customer and of its referrer, default first, then in creation order. */
  links: LinkJson[];
  /** The figures of both: owner id, metric, low part, high part; one per slot. */
  counters: [number, string, number, number][];
  program_website: string | null;
  program_settings: string;
};

/**
 * PostgreSQL: the customers path segments name (each by public id, else by key) with everything
 * their records show: the referrer's row, both customers' links and figures, and the program's
 * website and settings for the link URLs, in one statement; `ord` is the segment's place in
 * `segments` (from 1), and a segment no customer has gives no row. The two lookups are equality
 * lookups each (`union all`), the public id ranked first.
 */
export const selectCustomerRecordsByPaths = definePreparedQuery<
  CustomerRecordRow & { ord: number | string },
  { programId: number; segments: readonly string[] }
>((db, param) => {
  const segment = sql<string>`q.segment`;
  const by = (column: 'public_id' | 'key', rank: number) =>
    db
      .selectFrom('customers')
      .selectAll()
      .select(sql<number>`${sql.lit(rank)}`.as('rank'))
      .where('program_id', '=', param('programId'))
      .where(column, '=', segment);
  const found = db
    .selectFrom(by('public_id', 0).unionAll(by('key', 1)).as('f'))
    .selectAll()
    .orderBy('rank')
    .limit(1);
  return db
    .selectFrom(
      sql<{ segment: string; ord: number }>`(select segment, ord
        from unnest(cast(${param('segments')} as text[])) with ordinality as s(segment, ord))`.as('q'),
    )
    .innerJoinLateral(found.as('c'), (join) => join.onTrue())
    .selectAll('c')
    .select([
      'q.ord',
      sql<CustomerJson | null>`(select row_to_json(r) from customers r
          where r.program_id = ${param('programId')} and r.id = c.referring_customer_id)`.as('referrer'),
      sql<LinkJson[]>`(select coalesce(json_agg(l order by l.is_default desc, l.created_at, l.id), '[]')
          from (select * from referral_links
                  where program_id = ${param('programId')} and customer_id = c.id
                union all
                select * from referral_links
                  where program_id = ${param('programId')} and customer_id = c.referring_customer_id) l)`.as(
        'links',
      ),
      sql<
        [number, string, number, number][]
      >`(select coalesce(json_agg(json_build_array(e.owner_id, e.metric, e.value, e.value_hi)), '[]')
          from (select * from entity_counters
                  where program_id = ${param('programId')} and owner_kind = 'customer' and owner_id = c.id
                union all
                select * from entity_counters
                  where program_id = ${param('programId')} and owner_kind = 'customer'
                    and owner_id = c.referring_customer_id) e)`.as('counters'),
      ...programLinkReads(param),
    ]) as never;
});

/** A customer's record as `selectCustomerRecordsByPaths` reads it. */
export function customerRecordOf(row: CustomerRecordRow & { ord?: unknown }) {
  const { referrer, links, counters, program_website, program_settings, ...customer } = row;
  delete (customer as { rank?: number }).rank;
  delete (customer as { ord?: unknown }).ord;
  const a = Number(customer.id);
  const b = customer.referring_customer_id === null ? a : Number(customer.referring_customer_id);
  return {
    row: customer as Selectable<CustomersTable>,
    referrer: referrer ?? undefined,
    links,
    counters: figuresByOwner(
      counters.map(([owner_id, metric, value, value_hi]) => ({ owner_id, metric, value, value_hi })),
      a,
      b,
    ),
    program: { website: program_website, settings: program_settings },
  };
}

export type CustomerRecordRead = ReturnType<typeof customerRecordOf>;

/** The records `segments` name, in their order; undefined where no customer has the segment. */
export async function customerRecordsByPaths(
  db: Kysely<DB>,
  programId: number,
  segments: readonly string[],
): Promise<(CustomerRecordRead | undefined)[]> {
  const rows = await selectCustomerRecordsByPaths(db, { programId, segments });
  const records: (CustomerRecordRead | undefined)[] = segments.map(() => undefined);
  for (const row of rows) records[Number(row.ord) - 1] = customerRecordOf(row);
  return records;
}

/** Record reads in one statement at most. */
export const MAX_READS = 32;

/** Reads of a program's customer records that arrive together go as one statement (db/coalescer.ts). */
export const recordReads = coalescerPerDatabase<{ segment: string }, CustomerRecordRead | undefined>(
  (db) => ({
    take: (queue) => ({ batch: queue.slice(0, MAX_READS), rest: queue.slice(MAX_READS) }),
    together: (programId, batch) =>
      customerRecordsByPaths(
        db,
        programId,
        batch.map((read) => read.segment),
      ),
    alone: async (programId, read) => (await customerRecordsByPaths(db, programId, [read.segment]))[0],
  }),
);

/**
 * The customer a path segment names (public id, else key) with everything its record shows, or
 * undefined when no customer has the segment. PostgreSQL reads it in one statement, with the
 * program's other such reads of this turn; SQLite, whose reads are in-process calls, part by part.
 */
export async function findCustomerRecordByPath(
  db: Kysely<DB>,
  programId: number,
  segment: string,
): Promise<CustomerRecordRead | undefined> {
  if (isPostgres(db)) return recordReads(db).run(programId, { segment });
  const row =
    (await findCustomerBy(db, programId, 'public_id', segment)) ??
    (await findCustomerBy(db, programId, 'key', segment));
  if (!row) return undefined;
  const a = Number(row.id);
  const b = row.referring_customer_id === null ? a : Number(row.referring_customer_id);
  const [bundle, program] = await Promise.all([
    customerBundle(db, programId, a, b),
    db.selectFrom('programs').select(['website', 'settings']).where('id', '=', programId).executeTakeFirst(),
  ]);
  return {
    row,
    referrer: bundle.referrer,
    links: bundle.links,
    counters: bundle.counters,
    program: { website: program?.website ?? null, settings: program?.settings ?? '{}' },
  };
}
