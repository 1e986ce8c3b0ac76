import { type Kysely, type Selectable, sql } from 'kysely';
import { coalescerPerDatabase } from '../../db/coalescer.ts';
import { CounterFigures } from '../../db/counter-parts.ts';
import { isPostgres } from '../../db/counter-slots.ts';
import type { CustomersTable, ReferralLinksTable } from '../../db/domain-tables.ts';
import { lowerEmail } from '../../db/email.ts';
import { nextId } from '../../db/next-id.ts';
import { definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { findCustomerBy, findCustomerById } from './customers.repository.ts';

/**
 * Hot-path reads of refer-a-friend customers, compiled once: a customer record needs the links
 * and figures of the customer and of its referrer, read two owners at a time (pass the same id
 * twice for a customer without a referrer).
 */

type TwoOwners = { programId: number; a: number; b: number };

/**
 * Two owners are read as two equality lookups, never `owner in (a, b)`: on PostgreSQL, while a
 * table's statistics still describe it as small (a new program, before autovacuum's analyze), the
 * planner scans every row of the program's prefix and filters on the second owner: 2–8 ms instead
 * of 0.05 ms with 5,000 figure rows, inside the sale's lock on its buyer.
 */
const secondOwner = (param: ParamOf<TwoOwners>) => sql<boolean>`${param('b')} <> ${param('a')}`;

const selectLinksOfTwo = definePreparedQuery<Selectable<ReferralLinksTable>, TwoOwners>((db, param) => {
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
});

const selectCountersOfTwo = definePreparedQuery<
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

type CounterRow = { owner_id: number; metric: string; value: number | bigint; value_hi: number | bigint };

/** The figures of up to two customers, by customer id then metric (slots summed). */
function figuresByOwner(rows: readonly CounterRow[], a: number, b: number) {
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
const selectCustomerBundle = definePreparedQuery<
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

/** A customer row as `row_to_json` answers it (every value fits a double: ids, booleans, text). */
type CustomerJson = Selectable<CustomersTable>;
type LinkJson = Selectable<ReferralLinksTable>;

/** The program's website and settings, which a record's link URLs are built from. */
const programLinkReads = (param: ParamOf<{ programId: number }>) =>
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
const selectCustomerRecordsByPaths = definePreparedQuery<
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
function customerRecordOf(row: CustomerRecordRow & { ord?: unknown }) {
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
async function customerRecordsByPaths(
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
const MAX_READS = 32;

/** Reads of a program's customer records that arrive together go as one statement (db/coalescer.ts). */
const recordReads = coalescerPerDatabase<{ segment: string }, CustomerRecordRead | undefined>((db) => ({
  take: (queue) => ({ batch: queue.slice(0, MAX_READS), rest: queue.slice(MAX_READS) }),
  together: (programId, batch) =>
    customerRecordsByPaths(
      db,
      programId,
      batch.map((read) => read.segment),
    ),
  alone: async (programId, read) => (await customerRecordsByPaths(db, programId, [read.segment]))[0],
}));

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

/** What a refer-a-friend signup decides on (PostgreSQL, `readForSignup`). */
export interface SignupRead {
  /** The id the new customer will have, taken from the customers' sequence. */
  customerId: number;
  program: { website: string | null; settings: string };
  /** The referrer the body names, with its links and figures (one row per slot); absent when not found. */
  referrer?: { row: CustomerJson; links: LinkJson[]; figures: CounterFigures };
}

type SignupReadRow = {
  customer_id: number;
  program_website: string | null;
  program_settings: string;
  referrer: CustomerJson | null;
  links: LinkJson[] | null;
  figures: [string, number, number][] | null;
};

/**
 * PostgreSQL, one statement: the program's website and settings, an id for the new customer,
 * and the referrer named by `column` (none when undefined) with its links and figures. The
 * program's row is always there (the request's program), so the statement answers one row.
 */
const signupReadBy = (column: 'public_id' | 'key' | 'email' | undefined) =>
  definePreparedQuery<SignupReadRow, { programId: number; value: string }>((db, param) => {
    const reads = [
      nextId('customers').as('customer_id'),
      sql<string | null>`p.website`.as('program_website'),
      sql<string>`p.settings`.as('program_settings'),
    ] as const;
    const programs = db.selectFrom('programs as p').where('p.id', '=', param('programId'));
    if (column === undefined)
      return programs.select([
        ...reads,
        sql<null>`null`.as('referrer'),
        sql<null>`null`.as('links'),
        sql<null>`null`.as('figures'),
      ]) as never;
    const match =
      column === 'email'
        ? sql<boolean>`lower(r.email) = lower(${param('value')})`
        : sql<boolean>`${sql.ref(`r.${column}`)} = ${param('value')}`;
    return programs
      .leftJoin('customers as r', (join) => join.on('r.program_id', '=', param('programId')).on(match))
      .select([
        ...reads,
        // A left join without a match gives a row of nulls, which row_to_json makes an object.
        sql<CustomerJson | null>`case when r.id is null then null else row_to_json(r) end`.as('referrer'),
        sql<LinkJson[]>`(select coalesce(json_agg(l order by l.is_default desc, l.created_at, l.id), '[]')
          from referral_links l where l.program_id = ${param('programId')} and l.customer_id = r.id)`.as(
          'links',
        ),
        sql<[string, number, number][]>`(select coalesce(json_agg(json_build_array(e.metric, e.value,
          e.value_hi)), '[]') from entity_counters e where e.program_id = ${param('programId')}
          and e.owner_kind = 'customer' and e.owner_id = r.id)`.as('figures'),
      ]) as never;
  });
const signupReads = {
  none: signupReadBy(undefined),
  public_id: signupReadBy('public_id'),
  key: signupReadBy('key'),
  email: signupReadBy('email'),
};

/**
 * PostgreSQL: what a signup decides on, in one round trip (`signupReadBy`); the referrer is
 * named by `id`, else `key`, else `email`, as `findCustomerByRef` names it.
 */
export async function readForSignup(
  db: Kysely<DB>,
  programId: number,
  ref: { id?: string | undefined; key?: string | undefined; email?: string | undefined } | undefined,
): Promise<SignupRead> {
  const [column, value] =
    ref?.id !== undefined
      ? (['public_id', ref.id] as const)
      : ref?.key !== undefined
        ? (['key', ref.key] as const)
        : ref?.email !== undefined
          ? (['email', ref.email] as const)
          : (['none', ''] as const);
  const [row] = await signupReads[column](db, { programId, value });
  if (!row) throw new Error('readForSignup: the program row is missing');
  const program = { website: row.program_website, settings: row.program_settings };
  const customerId = Number(row.customer_id);
  if (!row.referrer) return { customerId, program };
  const figures = CounterFigures.of(
    (row.figures ?? []).map(([metric, value, value_hi]) => ({ metric, value, value_hi })),
  );
  return { customerId, program, referrer: { row: row.referrer, links: row.links ?? [], figures } };
}

export async function linksOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  return selectLinksOfTwo(db, { programId, a, b });
}

/** Figures of up to two customers, by customer id then metric. */
export async function countersOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  return figuresByOwner(await selectCountersOfTwo(db, { programId, a, b }), a, b);
}

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
