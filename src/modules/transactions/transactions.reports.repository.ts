import { type Expression, type Kysely, sql } from 'kysely';
import { exportTuples } from '../../db/export-pages.ts';
import { namesById } from '../../db/names-by-id.ts';
import { definePreparedListQuery } from '../../db/prepared.ts';
import {
  type CountRow,
  type MoneyRow,
  type OwnerColumn,
  type Ranked,
  type RankWindow,
  type RowFilters,
  slice,
  topRanked,
  type Window,
} from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';

/** Read-only report queries of sales (issue 26): sales, revenue and buyers over time, rankings, the export. */

/** The transactions filter shared by sales, revenue and paying customers. */
function liveSales(db: Kysely<DB>, programId: number, window: Window, filters: RowFilters) {
  let query = db
    .selectFrom('transactions')
    .where('transactions.program_id', '=', programId)
    .where('transactions.deleted_at', 'is', null)
    .where('transactions.archived_at', 'is', null)
    .where('transactions.created_at', '>=', window.from)
    .where('transactions.created_at', '<', window.until);
  if (filters.partnerId !== undefined) query = query.where('transactions.partner_id', '=', filters.partnerId);
  if (filters.referrerId !== undefined)
    query = query.where('transactions.referring_customer_id', '=', filters.referrerId);
  if (filters.linkId !== undefined) {
    const linkId = filters.linkId;
    query = query.where('transactions.customer_id', 'in', (eb) =>
      eb
        .selectFrom('customers')
        .select('customers.id')
        .where('customers.program_id', '=', programId)
        .where('customers.referral_link_id', '=', linkId),
    );
  }
  return query;
}

export async function countSales(db: Kysely<DB>, programId: number, window: Window, filters: RowFilters) {
  return liveSales(db, programId, window, filters)
    .select([
      slice('transactions.created_at', window.prefix).as('slice'),
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .groupBy(sql`1`)
    .execute() as Promise<CountRow[]>;
}

/** Revenue net of refunds, per currency (sales in units, such as points, are not money). */
export async function sumRevenue(db: Kysely<DB>, programId: number, window: Window, filters: RowFilters) {
  return liveSales(db, programId, window, filters)
    .where('transactions.is_currency', '=', sql<boolean>`${sql.lit(true)}`)
    .select([
      slice('transactions.created_at', window.prefix).as('slice'),
      sql<string>`transactions.amount_units`.as('currency'),
      sql<string>`sum(transactions.amount - coalesce(transactions.refunded_amount, 0))`.as('micros'),
    ])
    .groupBy([sql`1`, sql`2`])
    .execute() as Promise<MoneyRow[]>;
}

/** Each (prefix, buyer) with a sale once: buyers are counted per bucket after prefixes are put in days. */
export async function salesBuyers(db: Kysely<DB>, programId: number, window: Window, filters: RowFilters) {
  return liveSales(db, programId, window, filters)
    .select([slice('transactions.created_at', window.prefix).as('slice'), 'transactions.customer_id'])
    .distinct()
    .execute() as Promise<{ slice: string; customer_id: number }[]>;
}

export type SalesRanking = { metric: 'sales' } | { metric: 'revenue'; currency: string };

/** The partners, links or referrers with the most sales (or revenue in one currency) in the window. */
export async function topSaleOwners(
  db: Kysely<DB>,
  programId: number,
  source: SalesRanking & { by: OwnerColumn },
  window: RankWindow,
  limit: number,
): Promise<Ranked[]> {
  const range = { from: window.from, until: window.until, prefix: 10 };
  const owner = {
    partner: 'transactions.partner_id',
    link: 'customers.referral_link_id',
    referrer: 'transactions.referring_customer_id',
  }[source.by];
  let sales = liveSales(db, programId, range, {});
  if (source.by === 'link')
    sales = sales.innerJoin('customers', 'customers.id', 'transactions.customer_id') as typeof sales;
  const figure =
    source.metric === 'sales'
      ? sql<string>`count(*)`
      : sql<string>`sum(transactions.amount - coalesce(transactions.refunded_amount, 0))`;
  let ranked = sales
    .select([sql<number>`${sql.ref(owner)}`.as('owner_id'), figure.as('figure')])
    .where(sql.ref(owner) as Expression<unknown> as never, 'is not', null)
    .groupBy(sql.ref(owner));
  if (source.metric === 'revenue')
    ranked = ranked
      .where('transactions.is_currency', '=', sql<boolean>`${sql.lit(true)}`)
      .where('transactions.amount_units', '=', source.currency);
  return topRanked(db, ranked, limit);
}

/** A sale as the export writes it (reports.exports.service.ts). */
export type SaleExportRow = {
  id: number;
  created_at: string;
  key: string;
  /** The buyer's key. */
  customer: string;
  /** The partner's public id. */
  partner: string | null;
  amount: number | bigint;
  amount_units: string | null;
  refunded_amount: number | bigint | null;
  product_id: string | null;
};

type SaleExportTuple = [
  id: number,
  created_at: string,
  key: string,
  customer: string,
  partner_id: number | null,
  amount: number | bigint,
  amount_units: string | null,
  refunded_amount: number | bigint | null,
  product_id: string | null,
];

const selectPartnerPublicIds = definePreparedListQuery<
  { id: number; public_id: string },
  { programId: number },
  number
>((db, param, ids) =>
  db
    .selectFrom('partners')
    .select(['id', 'public_id'])
    .where('program_id', '=', param('programId'))
    .where('id', 'in', ids),
);

/**
 * Every sale of the program, in creation order, without a join (ADR 0142): the buyer's key is
 * the sale's own copy (migration 0043), and the partners' public ids are looked up for those a
 * page names and earlier pages did not (db/names-by-id.ts), a few look-ups per page instead of
 * one per row.
 */
export const transactionRows = exportTuples(
  'transactions',
  (db, programId, filter: { partnerId?: number; customerId?: number }) => {
    let query = db
      .selectFrom('transactions')
      .select([
        'transactions.id',
        'transactions.created_at',
        'transactions.key',
        'transactions.customer_key',
        'transactions.partner_id',
        'transactions.amount',
        'transactions.amount_units',
        'transactions.refunded_amount',
        'transactions.product_id',
      ])
      .where('transactions.program_id', '=', programId)
      .where('transactions.archived_at', 'is', null);
    if (filter.partnerId !== undefined) query = query.where('transactions.partner_id', '=', filter.partnerId);
    if (filter.customerId !== undefined)
      query = query.where('transactions.customer_id', '=', filter.customerId);
    return query;
  },
  (db, programId) => {
    const partners = namesById(async (ids) =>
      (await selectPartnerPublicIds(db, { programId }, ids)).map((row) => [row.id, row.public_id] as const),
    );
    return async (page: readonly SaleExportTuple[]): Promise<SaleExportRow[]> => {
      const publicIds = await partners.namesOf(page.map((tuple) => tuple[4]));
      // Indexed reads: destructuring each tuple went through the array iterator.
      return page.map((tuple, i) => ({
        id: tuple[0],
        created_at: tuple[1],
        key: tuple[2],
        customer: tuple[3],
        partner: publicIds[i] ?? null,
        amount: tuple[5],
        amount_units: tuple[6],
        refunded_amount: tuple[7],
        product_id: tuple[8],
      }));
    };
  },
);
