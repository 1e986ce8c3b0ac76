import { type Kysely, sql } from 'kysely';
import { exportRows } from '../../db/export-pages.ts';
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

/**
 * Read-only report queries of the `rewards` rows (issue 26): affiliate commissions and
 * refer-a-friend rewards over time, commissions ranked, the commissions export.
 */

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

/** The links (by their sales' customers) or else the partners with the most commissions in one currency. */
export async function topCommissionOwners(
  db: Kysely<DB>,
  programId: number,
  by: OwnerColumn,
  currency: string,
  window: RankWindow,
  limit: number,
): Promise<Ranked[]> {
  const range = { from: window.from, until: window.until, prefix: 10 };
  const commissions = liveRewards(db, programId, range, {})
    .where('rewards.partner_id', 'is not', null)
    .where('rewards.is_currency', '=', sql<boolean>`${sql.lit(true)}`)
    .where('rewards.amount_units', '=', currency);
  if (by === 'link')
    return topRanked(
      db,
      commissions
        .innerJoin('transactions', 'transactions.id', 'rewards.transaction_id')
        .innerJoin('customers', 'customers.id', 'transactions.customer_id')
        .select([
          sql<number>`customers.referral_link_id`.as('owner_id'),
          sql<string>`sum(rewards.amount)`.as('figure'),
        ])
        .where('customers.referral_link_id', 'is not', null)
        .groupBy('customers.referral_link_id'),
      limit,
    );
  return topRanked(
    db,
    commissions
      .select([sql<number>`rewards.partner_id`.as('owner_id'), sql<string>`sum(rewards.amount)`.as('figure')])
      .groupBy('rewards.partner_id'),
    limit,
  );
}

/** Affiliate commissions: the reward rows of partners (sales' commissions, manual ones, clawbacks). */
export const commissionRows = exportRows(
  'rewards',
  (db, programId, filter: { partnerId?: number; currency?: string }) => {
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
    return query;
  },
);
