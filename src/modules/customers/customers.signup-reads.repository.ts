/** What a refer-a-friend signup reads first: whether the customer exists, and its referrer by id, key or e-mail. */
import { type Kysely, sql } from 'kysely';
import { CounterFigures } from '../../db/counter-parts.ts';
import { nextId } from '../../db/next-id.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { CustomerJson, LinkJson } from './customers.records.repository.ts';

/** What a refer-a-friend signup decides on (PostgreSQL, `readForSignup`). */
export interface SignupRead {
  /** The id the new customer will have, taken from the customers' sequence. */
  customerId: number;
  program: { website: string | null; settings: string };
  /** The referrer the body names, with its links and figures (one row per slot); absent when not found. */
  referrer?: { row: CustomerJson; links: LinkJson[]; figures: CounterFigures };
}

export type SignupReadRow = {
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
export const signupReadBy = (column: 'public_id' | 'key' | 'email' | undefined) =>
  definePreparedQuery<SignupReadRow, { programId: number; value: string }>(
    (db, param) => {
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
      // Planned with its values: the referrer's unique index and the e-mail index both start with
      // the program, and a plan cached while the table was small kept the wrong one (ADR 0052).
    },
    { plan: column === undefined ? 'cached' : 'each-call' },
  );

export const signupReads = {
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
