import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { joinCounterParts } from '../../db/counter-parts.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Read-only queries of reports over time (issue 26). Figures are read from rows in a UTC window
 * grouped by a prefix of their stored timestamp (a day, an hour or a minute: core/report-buckets.ts
 * puts prefixes in local days), and clicks from the per-day counters (no click rows are kept).
 * Every query is scoped by program id and bounded by the window on an index ending in created_at.
 */
export interface RowFilters {
  partnerId?: number;
  linkId?: number;
  /** A refer-a-friend referrer (customers.id). */
  referrerId?: number;
}

export interface Window {
  from: string;
  until: string;
  /** Length of the timestamp prefix rows are grouped by: 10, 13 or 16. */
  prefix: number;
}

export type CountRow = { slice: string; n: number | bigint | string };
export type MoneyRow = { slice: string; currency: string; micros: number | bigint | string };

const slice = (column: string, prefix: number) =>
  sql<string>`substr(${sql.ref(column)}, 1, ${sql.lit(prefix)})`;

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

/** Commissions or rewards that count: not deleted, denied, voided or rejected. */
function liveRewards(db: Kysely<DB>, programId: number, window: Window, filters: RowFilters) {
  let query = db
    .selectFrom('rewards')
    .where('rewards.program_id', '=', programId)
    .where('rewards.deleted_at', 'is', null)
    .where('rewards.status', 'not in', ['denied', 'voided', 'rejected'])
    .where('rewards.created_at', '>=', window.from)
    .where('rewards.created_at', '<', window.until);
  if (filters.partnerId !== undefined) query = query.where('rewards.partner_id', '=', filters.partnerId);
  if (filters.referrerId !== undefined) query = query.where('rewards.customer_id', '=', filters.referrerId);
  if (filters.linkId !== undefined) {
    const linkId = filters.linkId;
    query = query.where('rewards.transaction_id', 'in', (eb) =>
      eb
        .selectFrom('transactions')
        .innerJoin('customers', 'customers.id', 'transactions.customer_id')
        .select('transactions.id')
        .where('transactions.program_id', '=', programId)
        .where('customers.referral_link_id', '=', linkId),
    );
  }
  return query;
}

/** Affiliate commissions (clawbacks subtract), per currency. */
export async function sumCommissions(db: Kysely<DB>, programId: number, window: Window, filters: RowFilters) {
  return liveRewards(db, programId, window, filters)
    .where('rewards.partner_id', 'is not', null)
    .where('rewards.is_currency', '=', sql<boolean>`${sql.lit(true)}`)
    .select([
      slice('rewards.created_at', window.prefix).as('slice'),
      sql<string>`rewards.amount_units`.as('currency'),
      sql<string>`sum(rewards.amount)`.as('micros'),
    ])
    .groupBy([sql`1`, sql`2`])
    .execute() as Promise<MoneyRow[]>;
}

/** Refer-a-friend rewards given (to referrers and referred customers), counted. */
export async function countRewards(db: Kysely<DB>, programId: number, window: Window, filters: RowFilters) {
  return liveRewards(db, programId, window, filters)
    .select([
      slice('rewards.created_at', window.prefix).as('slice'),
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .groupBy(sql`1`)
    .execute() as Promise<CountRow[]>;
}

/** Newsletter subscribers created in the window; `referredOnly`: those a subscriber referred. */
export async function countSubscribers(
  db: Kysely<DB>,
  programId: number,
  window: Window,
  referredOnly: boolean,
): Promise<CountRow[]> {
  let query = db
    .selectFrom('subscribers')
    .select([slice('created_at', window.prefix).as('slice'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('program_id', '=', programId)
    .where('created_at', '>=', window.from)
    .where('created_at', '<', window.until);
  if (referredOnly) query = query.where('is_referred', '=', sql<boolean>`${sql.lit(true)}`);
  return query.groupBy(sql`1`).execute();
}

export type ClickOwner = { kind: 'partner' | 'link' | 'customer'; id: number };

/**
 * Clicks per UTC day of `[startDay, endDay]`: the program's (program_counters, every slot) or
 * one owner's (entity_counters_by_day).
 */
export async function dailyClicks(
  db: Kysely<DB>,
  programId: number,
  startDay: string,
  endDay: string,
  owner: ClickOwner | undefined,
): Promise<{ day: string; value: bigint }[]> {
  const rows = owner
    ? await db
        .selectFrom('entity_counters_by_day')
        .select(['day', 'value', 'value_hi'])
        .where('program_id', '=', programId)
        .where('owner_kind', '=', owner.kind)
        .where('owner_id', '=', owner.id)
        .where('metric', '=', 'clicks')
        .where('day', '>=', startDay)
        .where('day', '<=', endDay)
        .execute()
    : await db
        .selectFrom('program_counters')
        .select(['day', 'value', 'value_hi'])
        .where('program_id', '=', programId)
        .where('metric', '=', 'clicks')
        .where('day', '>=', startDay)
        .where('day', '<=', endDay)
        .execute();
  return rows.map((row) => ({ day: row.day, value: joinCounterParts(row.value, row.value_hi) }));
}

export type Ranked = { owner_id: number; figure: number | bigint | string };

/** Top owners' ids and figures, highest first, ties by id; owners whose figure is zero are left out. */
export async function topOwners(
  db: Kysely<DB>,
  programId: number,
  source: TopSource,
  window: { from: string; until: string; startDay: string; endDay: string },
  limit: number,
): Promise<Ranked[]> {
  const ranking = topQuery(db, programId, source, window);
  const result =
    await sql<Ranked>`select owner_id, figure from (${ranking}) ranked where figure <> 0 order by figure desc, owner_id limit ${sql.lit(limit)}`.execute(
      db,
    );
  return result.rows;
}

export type TopOwnerColumn = 'partner' | 'link' | 'referrer';

export type TopSource =
  | { metric: 'signups' | 'sales'; by: TopOwnerColumn }
  | { metric: 'revenue' | 'commissions'; by: TopOwnerColumn; currency: string }
  | { metric: 'clicks'; by: TopOwnerColumn }
  | { metric: 'redemptions'; by: 'promotion_code' };

function topQuery(
  db: Kysely<DB>,
  programId: number,
  source: TopSource,
  window: { from: string; until: string; startDay: string; endDay: string },
) {
  const range = { from: window.from, until: window.until, prefix: 10 };
  if (source.metric === 'clicks') {
    const kind = source.by === 'referrer' ? 'customer' : source.by;
    return db
      .selectFrom('entity_counters_by_day')
      .select([
        sql<number>`owner_id`.as('owner_id'),
        sql<string>`sum(value_hi * ${sql.lit(10 ** 12)} + value)`.as('figure'),
      ])
      .where('program_id', '=', programId)
      .where('owner_kind', '=', kind)
      .where('metric', '=', 'clicks')
      .where('day', '>=', window.startDay)
      .where('day', '<=', window.endDay)
      .groupBy('owner_id')
      .having(sql<SqlBool>`sum(value_hi * ${sql.lit(10 ** 12)} + value) <> 0`);
  }
  if (source.metric === 'redemptions') {
    return db
      .selectFrom('promotion_code_redemptions')
      .select([sql<number>`promotion_code_id`.as('owner_id'), sql<string>`count(*)`.as('figure')])
      .where('program_id', '=', programId)
      .where('redeemed_at', '>=', window.from)
      .where('redeemed_at', '<', window.until)
      .groupBy('promotion_code_id');
  }
  if (source.metric === 'signups') {
    const column = { partner: 'partner_id', link: 'referral_link_id', referrer: 'referring_customer_id' }[
      source.by
    ] as 'partner_id' | 'referral_link_id' | 'referring_customer_id';
    return db
      .selectFrom('customers')
      .select([sql<number>`${sql.ref(column)}`.as('owner_id'), sql<string>`count(*)`.as('figure')])
      .where('program_id', '=', programId)
      .where('deleted_at', 'is', null)
      .where(column, 'is not', null)
      .where('created_at', '>=', window.from)
      .where('created_at', '<', window.until)
      .groupBy(column);
  }
  if (source.metric === 'commissions') {
    const commissions = liveRewards(db, programId, range, {})
      .where('rewards.partner_id', 'is not', null)
      .where('rewards.is_currency', '=', sql<boolean>`${sql.lit(true)}`)
      .where('rewards.amount_units', '=', source.currency);
    if (source.by === 'link')
      return commissions
        .innerJoin('transactions', 'transactions.id', 'rewards.transaction_id')
        .innerJoin('customers', 'customers.id', 'transactions.customer_id')
        .select([
          sql<number>`customers.referral_link_id`.as('owner_id'),
          sql<string>`sum(rewards.amount)`.as('figure'),
        ])
        .where('customers.referral_link_id', 'is not', null)
        .groupBy('customers.referral_link_id');
    return commissions
      .select([sql<number>`rewards.partner_id`.as('owner_id'), sql<string>`sum(rewards.amount)`.as('figure')])
      .groupBy('rewards.partner_id');
  }
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
  return ranked;
}

export type OwnerLabel = { owner_id: number; id: string; key: string | null; name: string | null };

/** The id, key and name a ranking shows for each owner id (one statement per ranking). */
export async function ownerLabels(
  db: Kysely<DB>,
  programId: number,
  by: TopOwnerColumn | 'promotion_code',
  ids: readonly number[],
): Promise<OwnerLabel[]> {
  if (ids.length === 0) return [];
  if (by === 'partner')
    return db
      .selectFrom('partners')
      .leftJoin('referral_links', (join) =>
        join
          .onRef('referral_links.partner_id', '=', 'partners.id')
          .on('referral_links.program_id', '=', programId)
          .on('referral_links.is_default', '=', sql<boolean>`${sql.lit(true)}`),
      )
      .select([
        'partners.id as owner_id',
        'partners.public_id as id',
        'referral_links.key as key',
        sql<string | null>`trim(coalesce(partners.name, '') || ' ' || coalesce(partners.surname, ''))`.as(
          'name',
        ),
      ])
      .where('partners.program_id', '=', programId)
      .where('partners.id', 'in', ids)
      .execute();
  if (by === 'link')
    return db
      .selectFrom('referral_links')
      .select(['id as owner_id', 'key as id', 'key', sql<string | null>`null`.as('name')])
      .where('program_id', '=', programId)
      .where('id', 'in', ids)
      .execute();
  if (by === 'referrer')
    return db
      .selectFrom('customers')
      .select([
        'id as owner_id',
        'public_id as id',
        'key',
        sql<string | null>`trim(coalesce(name, '') || ' ' || coalesce(surname, ''))`.as('name'),
      ])
      .where('program_id', '=', programId)
      .where('id', 'in', ids)
      .execute();
  return db
    .selectFrom('promotion_codes')
    .select(['id as owner_id', 'code as id', 'code as key', sql<string | null>`null`.as('name')])
    .where('program_id', '=', programId)
    .where('id', 'in', ids)
    .execute();
}
