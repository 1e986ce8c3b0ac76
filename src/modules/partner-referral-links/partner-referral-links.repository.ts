import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';

/** Partner link searches and link domains; every query is scoped by the program. */

export async function searchPartnerLinks(
  db: Kysely<DB>,
  programId: number,
  filter: { key?: string; partnerId?: number },
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where('partner_id', 'is not', null);
  if (filter.key !== undefined) query = query.where('key', '=', filter.key);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  return query.orderBy('id', sort).limit(window.fetch).offset(window.offset).execute();
}

export async function findDomain(db: Kysely<DB>, programId: number, id: number) {
  return db
    .selectFrom('link_domains')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listDomains(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('link_domains')
    .selectAll()
    .where('program_id', '=', programId)
    .orderBy('id')
    .execute();
}

export async function deleteLinkCounters(db: Kysely<DB>, programId: number, linkId: number) {
  await db
    .deleteFrom('entity_counters')
    .where('program_id', '=', programId)
    .where('owner_kind', '=', 'link')
    .where('owner_id', '=', linkId)
    .execute();
}
