import { type Kysely, sql } from 'kysely';
import { exportRows } from '../../db/export-pages.ts';
import {
  type CountRow,
  type OwnerColumn,
  type OwnerLabel,
  programScope,
  type Ranked,
  type RankWindow,
  type RowFilters,
  slice,
  topRanked,
  type Window,
} from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';

/** Read-only report queries of customers (issue 26): signups over time and ranked, referrers' labels, the export. */

/** Live customers created in the window; `referredOnly`: those a partner or a referrer brought. */
export async function countCustomers(
  db: Kysely<DB>,
  programId: number,
  window: Window,
  filters: RowFilters,
  referredOnly: boolean,
): Promise<CountRow[]> {
  let query = db
    .selectFrom('customers')
    .select([slice('created_at', window.prefix).as('slice'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('program_id', '=', programId)
    .where('deleted_at', 'is', null)
    .where('created_at', '>=', window.from)
    .where('created_at', '<', window.until);
  if (filters.partnerId !== undefined) query = query.where('partner_id', '=', filters.partnerId);
  if (filters.linkId !== undefined) query = query.where('referral_link_id', '=', filters.linkId);
  if (filters.referrerId !== undefined) query = query.where('referring_customer_id', '=', filters.referrerId);
  if (referredOnly)
    query = query.where((eb) =>
      eb.or([eb('partner_id', 'is not', null), eb('referring_customer_id', 'is not', null)]),
    );
  return query.groupBy(sql`1`).execute();
}

/** The partners, links or referrers that brought the most customers in the window. */
export async function topSignupOwners(
  db: Kysely<DB>,
  programId: number,
  by: OwnerColumn,
  window: RankWindow,
  limit: number,
): Promise<Ranked[]> {
  const column = { partner: 'partner_id', link: 'referral_link_id', referrer: 'referring_customer_id' }[by] as
    | 'partner_id'
    | 'referral_link_id'
    | 'referring_customer_id';
  const ranking = db
    .selectFrom('customers')
    .select([sql<number>`${sql.ref(column)}`.as('owner_id'), sql<string>`count(*)`.as('figure')])
    .where('program_id', '=', programId)
    .where('deleted_at', 'is', null)
    .where(column, 'is not', null)
    .where('created_at', '>=', window.from)
    .where('created_at', '<', window.until)
    .groupBy(column);
  return topRanked(db, ranking, limit);
}

/** The id, key and name a ranking of referrers shows for each customer id. */
export async function referrerLabels(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
): Promise<OwnerLabel[]> {
  return db
    .selectFrom('customers')
    .select([
      'id as owner_id',
      'public_id as id',
      'key',
      sql<string | null>`trim(coalesce(name, '') || ' ' || coalesce(surname, ''))`.as('name'),
    ])
    .where(programScope('program_id'), '=', programId)
    .where('id', 'in', ids)
    .execute();
}

export const customerRows = exportRows(
  'customers',
  (db, programId, filter: { partnerId?: number; referrerId?: number }) => {
    let query = db
      .selectFrom('customers')
      .leftJoin('partners', 'partners.id', 'customers.partner_id')
      .leftJoin('customers as referrers', 'referrers.id', 'customers.referring_customer_id')
      .select([
        'customers.id',
        'customers.created_at',
        'customers.public_id',
        'customers.key',
        'customers.email',
        'customers.name',
        'customers.surname',
        'partners.public_id as partner',
        'referrers.public_id as referrer',
      ])
      .where('customers.program_id', '=', programId)
      .where('customers.deleted_at', 'is', null);
    if (filter.partnerId !== undefined) query = query.where('customers.partner_id', '=', filter.partnerId);
    if (filter.referrerId !== undefined)
      query = query.where('customers.referring_customer_id', '=', filter.referrerId);
    return query;
  },
);
