import type { Kysely } from 'kysely';
import { microsFrom } from '../../core/money.ts';
import type { NoticeCursor } from '../../core/notices.ts';
import type { DB } from '../../db/tables.ts';
import { listCommissionsCreatedAfter } from './commissions.news.repository.ts';

const ANNOUNCED_ROLES = new Set(['commission', 'tier2', 'manual']);
const WITHDRAWN = new Set(['denied', 'voided']);

/**
 * What partners earned since `after`, for the new-commission e-mails: per partner, how many
 * commissions and their exact total per currency. `last` is where the next read starts, past
 * every row read, announced or not.
 */
export async function listNewCommissions(
  db: Kysely<DB>,
  programId: number,
  after: NoticeCursor,
  until: string,
  limit: number,
) {
  const rows = await listCommissionsCreatedAfter(db, programId, after, until, limit);
  const byPartner = new Map<number, { count: number; totals: Map<string, bigint> }>();
  for (const row of rows) {
    if (row.partner_id === null || !ANNOUNCED_ROLES.has(row.role) || WITHDRAWN.has(row.status)) continue;
    if (row.deleted_at !== null) continue;
    const amount = microsFrom(row.amount);
    if (amount <= 0n) continue;
    const partnerId = Number(row.partner_id);
    const earned = byPartner.get(partnerId) ?? { count: 0, totals: new Map<string, bigint>() };
    earned.count += 1;
    earned.totals.set(row.amount_units, (earned.totals.get(row.amount_units) ?? 0n) + amount);
    byPartner.set(partnerId, earned);
  }
  const lastRow = rows.at(-1);
  return {
    read: rows.length,
    last: lastRow ? { createdAt: lastRow.created_at, id: Number(lastRow.id) } : undefined,
    byPartner,
  };
}
