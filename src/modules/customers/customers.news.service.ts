import type { Kysely } from 'kysely';
import type { NoticeCursor } from '../../core/notices.ts';
import type { DB } from '../../db/tables.ts';
import { linkUrl, linkUrlContextOf } from '../referral-links/referral-links.shared.ts';
import { listCustomersCreatedAfter } from './customers.news.repository.ts';

/**
 * New refer-a-friend customers as the welcome e-mail needs them, with the link each one shares
 * (the default link, whose key is the customer's key). Archived customers and those without an
 * e-mail address are passed (the cursor still moves past them).
 */
export async function listNewReferralCustomers(
  db: Kysely<DB>,
  program: { id: number; website: string | null; settings: string },
  after: NoticeCursor,
  until: string,
  limit: number,
) {
  const rows = await listCustomersCreatedAfter(db, program.id, after, until, limit);
  const links = linkUrlContextOf('referral', program);
  return rows.map((row) => ({
    cursor: { createdAt: row.created_at, id: Number(row.id) },
    email: row.status === 'archived' ? null : row.email,
    name: [row.name, row.surname].filter(Boolean).join(' ') || null,
    referralLink: linkUrl(links.website, links.parameter, row.key),
  }));
}
