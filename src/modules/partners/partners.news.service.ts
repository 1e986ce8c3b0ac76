import type { Kysely } from 'kysely';
import type { NoticeCursor } from '../../core/notices.ts';
import type { DB } from '../../db/tables.ts';
import { listPartnersCreatedAfter } from './partners.news.repository.ts';
import { serializePartner } from './partners.service.ts';

/** New partners as the welcome e-mail needs them, with the link each one shares. */
export async function listNewPartners(
  db: Kysely<DB>,
  programId: number,
  after: NoticeCursor,
  until: string,
  limit: number,
) {
  const rows = await listPartnersCreatedAfter(db, programId, after, until, limit);
  return Promise.all(
    rows.map(async (row) => {
      const partner = await serializePartner(db, programId, row);
      return {
        cursor: { createdAt: row.created_at, id: Number(row.id) },
        email: row.email,
        name: [row.name, row.surname].filter(Boolean).join(' ') || null,
        approved: Boolean(row.approved),
        referralLink: partner.referral_link,
      };
    }),
  );
}
