import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from '../../db/tables.ts';

/**
 * Keyset pages of the rows full exports write (issue 26): in creation order `(created_at, id)`,
 * each page after the last row of the one before, on the index every list has
 * (`program_id, created_at, id`), so a page costs the same at the start and at the millionth row.
 * Read-only and scoped by program id; each page is read as the columns its file writes.
 */
export interface ExportCursor {
  createdAt: string;
  id: number;
}

export interface ExportRange {
  /** Stored-format prefixes: rows at or after `from` and before `until`. */
  from?: string;
  until?: string;
}

export const EXPORT_PAGE = 2000;

/** `created_at` within the range, after the cursor, in creation order, one page. */
function paged<O>(
  query: SelectQueryBuilder<DB, never, O>,
  table: string,
  range: ExportRange,
  after: ExportCursor | undefined,
): SelectQueryBuilder<DB, never, O> {
  const createdAt = sql.ref(`${table}.created_at`);
  const id = sql.ref(`${table}.id`);
  let paging = query;
  if (range.from !== undefined) paging = paging.where(sql<boolean>`${createdAt} >= ${range.from}`);
  if (range.until !== undefined) paging = paging.where(sql<boolean>`${createdAt} < ${range.until}`);
  if (after)
    paging = paging.where(
      sql<boolean>`(${createdAt} > ${after.createdAt} or (${createdAt} = ${after.createdAt} and ${id} > ${after.id}))`,
    );
  return paging.orderBy(createdAt).orderBy(id).limit(EXPORT_PAGE);
}

export type ExportRow = { id: number; created_at: string } & Record<string, unknown>;

type Base<Filter> = (
  db: Kysely<DB>,
  programId: number,
  filter: Filter,
) => SelectQueryBuilder<DB, never, ExportRow>;

/** An export's rows: one keyset page after a cursor, and how many rows the whole range has. */
function exportRows<Filter>(table: string, base: Base<Filter>) {
  return {
    page: (
      db: Kysely<DB>,
      programId: number,
      filter: Filter,
      range: ExportRange,
      after: ExportCursor | undefined,
    ): Promise<ExportRow[]> => paged(base(db, programId, filter), table, range, after).execute(),
    count: async (db: Kysely<DB>, programId: number, filter: Filter, range: ExportRange): Promise<number> => {
      const all = paged(base(db, programId, filter), table, range, undefined)
        .clearSelect()
        .clearOrderBy()
        .clearLimit()
        .select(sql<number>`count(*)`.as('n'));
      const row = (await all.executeTakeFirst()) as { n: number | string } | undefined;
      return Number(row?.n ?? 0);
    },
  };
}

export const partnerRows = exportRows<{ status?: string }>('partners', (db, programId, filter) => {
  let query = db
    .selectFrom('partners')
    .leftJoin('referral_links', (join) =>
      join
        .onRef('referral_links.partner_id', '=', 'partners.id')
        .on('referral_links.program_id', '=', programId)
        .on('referral_links.is_default', '=', sql<boolean>`${sql.lit(true)}`),
    )
    .select([
      'partners.id',
      'partners.created_at',
      'partners.public_id',
      'partners.email',
      'partners.name',
      'partners.surname',
      'partners.status',
      'referral_links.key',
    ])
    .where('partners.program_id', '=', programId);
  query =
    filter.status === undefined
      ? query.where('partners.status', '<>', 'archived')
      : query.where('partners.status', '=', filter.status);
  return query as never;
});

export const customerRows = exportRows<{ partnerId?: number; referrerId?: number }>(
  'customers',
  (db, programId, filter) => {
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
    return query as never;
  },
);

export const transactionRows = exportRows<{ partnerId?: number; customerId?: number }>(
  'transactions',
  (db, programId, filter) => {
    let query = db
      .selectFrom('transactions')
      .innerJoin('customers', 'customers.id', 'transactions.customer_id')
      .leftJoin('partners', 'partners.id', 'transactions.partner_id')
      .select([
        'transactions.id',
        'transactions.created_at',
        'transactions.key',
        'customers.key as customer',
        'partners.public_id as partner',
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
    return query as never;
  },
);

/** Affiliate commissions: the reward rows of partners (sales' commissions, manual ones, clawbacks). */
export const commissionRows = exportRows<{ partnerId?: number; currency?: string }>(
  'rewards',
  (db, programId, filter) => {
    let query = db
      .selectFrom('rewards')
      .innerJoin('partners', 'partners.id', 'rewards.partner_id')
      .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
      .select([
        'rewards.id',
        'rewards.created_at',
        'partners.public_id as partner',
        'transactions.key as sale',
        'rewards.amount',
        'rewards.amount_units',
        'rewards.status',
        'rewards.available_at',
      ])
      .where('rewards.program_id', '=', programId)
      .where('rewards.deleted_at', 'is', null);
    if (filter.partnerId !== undefined) query = query.where('rewards.partner_id', '=', filter.partnerId);
    if (filter.currency !== undefined) query = query.where('rewards.amount_units', '=', filter.currency);
    return query as never;
  },
);

export const subscriberRows = exportRows<{ referred?: boolean }>('subscribers', (db, programId, filter) => {
  let query = db
    .selectFrom('subscribers')
    .select([
      'subscribers.id',
      'subscribers.created_at',
      'subscribers.public_id',
      'subscribers.email',
      'subscribers.name',
      'subscribers.status',
      'subscribers.code',
      'subscribers.is_referred',
      'subscribers.referrals_count',
    ])
    .where('subscribers.program_id', '=', programId);
  if (filter.referred !== undefined)
    query = query.where('subscribers.is_referred', '=', sql<boolean>`${sql.lit(filter.referred)}`);
  return query as never;
});
