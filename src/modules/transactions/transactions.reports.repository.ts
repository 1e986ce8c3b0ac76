import { type Expression, type Kysely, sql } from 'kysely';
import { csvTable } from '../../db/export-csv.ts';
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

/**
 * Every sale of the program, in creation order, as the transactions export writes it: without a
 * join (ADR 0142), as the buyer's key is the sale's own copy (migration 0043) and the partners'
 * public ids are looked up once per export and partner (db/export-csv.ts).
 */
export const transactionRows = csvTable({
  table: 'transactions',
  names: { partner_id: { table: 'partners', column: 'public_id' } },
  where: (query, filter: { partnerId?: number; customerId?: number }) => {
    let rows = query.where('transactions.archived_at', 'is', null);
    if (filter.partnerId !== undefined) rows = rows.where('transactions.partner_id', '=', filter.partnerId);
    if (filter.customerId !== undefined)
      rows = rows.where('transactions.customer_id', '=', filter.customerId);
    return rows;
  },
});
