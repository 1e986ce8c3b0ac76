import type { Kysely } from 'kysely';
import type { OwnerColumn, OwnerLabel, Ranked, RankWindow } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';
import { topCommissionOwners } from '../commissions/commissions.reports.service.ts';
import { topClickOwners } from '../counters/counters.clicks.repository.ts';
import { referrerLabels, topSignupOwners } from '../customers/customers.reports.service.ts';
import { partnerLabels } from '../partners/partners.reports.service.ts';
import { promotionCodeLabels, topRedeemedCodes } from '../promotion-codes/promotion-codes.reports.service.ts';
import { linkLabels } from '../referral-links/referral-links.reports.service.ts';
import { topSaleOwners } from '../transactions/transactions.reports.service.ts';

/**
 * Rankings read from rows (issue 26): each figure from the module that owns its rows, the
 * owners' labels from the module that owns them.
 */
export type TopOwnerColumn = OwnerColumn;

export type TopSource =
  | { metric: 'signups'; by: TopOwnerColumn }
  | { metric: 'sales'; by: TopOwnerColumn }
  | { metric: 'revenue'; by: TopOwnerColumn; currency: string }
  | { metric: 'commissions'; by: TopOwnerColumn; currency: string }
  | { metric: 'clicks'; by: TopOwnerColumn }
  | { metric: 'redemptions'; by: 'promotion_code' };

/** Top owners' ids and figures, highest first, ties by id; owners whose figure is zero are left out. */
export async function topOwners(
  db: Kysely<DB>,
  programId: number,
  source: TopSource,
  window: RankWindow,
  limit: number,
): Promise<Ranked[]> {
  switch (source.metric) {
    case 'clicks':
      return topClickOwners(db, programId, source.by === 'referrer' ? 'customer' : source.by, window, limit);
    case 'redemptions':
      return topRedeemedCodes(db, programId, window, limit);
    case 'signups':
      return topSignupOwners(db, programId, source.by, window, limit);
    case 'commissions':
      return topCommissionOwners(db, programId, source.by, source.currency, window, limit);
    case 'sales':
    case 'revenue':
      return topSaleOwners(db, programId, source, window, limit);
  }
}

/** The id, key and name a ranking shows for each owner id (one statement per ranking). */
export async function ownerLabels(
  db: Kysely<DB>,
  programId: number,
  by: TopOwnerColumn | 'promotion_code',
  ids: readonly number[],
): Promise<OwnerLabel[]> {
  if (ids.length === 0) return [];
  switch (by) {
    case 'partner':
      return partnerLabels(db, programId, ids);
    case 'link':
      return linkLabels(db, programId, ids);
    case 'referrer':
      return referrerLabels(db, programId, ids);
    case 'promotion_code':
      return promotionCodeLabels(db, programId, ids);
  }
}
