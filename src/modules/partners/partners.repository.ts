import type { Insertable, Kysely, Updateable } from 'kysely';
import type { PartnersTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';

/** Partner queries; every one is scoped by the program. */

export async function insertPartner(db: Kysely<DB>, values: Insertable<PartnersTable>) {
  return db.insertInto('partners').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findPartnerBy(
  db: Kysely<DB>,
  programId: number,
  column: 'public_id' | 'email',
  value: string,
) {
  return db
    .selectFrom('partners')
    .selectAll()
    .where('program_id', '=', programId)
    .where(column, '=', value)
    .executeTakeFirst();
}

export async function findPartnerById(db: Kysely<DB>, programId: number, id: number) {
  return db
    .selectFrom('partners')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findPartnersByIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('partners')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', 'in', [...ids])
    .execute();
}

/** The partner owning the referral link with this key. */
export async function findPartnerByLinkKey(db: Kysely<DB>, programId: number, key: string) {
  return db
    .selectFrom('referral_links')
    .innerJoin('partners', 'partners.id', 'referral_links.partner_id')
    .selectAll('partners')
    .where('referral_links.program_id', '=', programId)
    .where('referral_links.key', '=', key)
    .executeTakeFirst();
}

export async function updatePartner(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<PartnersTable>,
) {
  return db
    .updateTable('partners')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deletePartner(db: Kysely<DB>, programId: number, id: number) {
  await db
    .deleteFrom('entity_counters')
    .where('program_id', '=', programId)
    .where('owner_kind', '=', 'partner')
    .where('owner_id', '=', id)
    .execute();
  await db.deleteFrom('partners').where('program_id', '=', programId).where('id', '=', id).execute();
}

export interface PartnerListFilter {
  status?: string;
  publicId?: string;
  email?: string;
  linkKey?: string;
}

/**
 * One page plus one row. Archived partners are left out unless asked for by status; the
 * `status <> 'archived'` form keeps the newest-first walk on the primary key.
 */
export async function listPartners(
  db: Kysely<DB>,
  programId: number,
  filter: PartnerListFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db.selectFrom('partners').selectAll('partners').where('partners.program_id', '=', programId);
  query =
    filter.status === undefined
      ? query.where('partners.status', '<>', 'archived')
      : query.where('partners.status', '=', filter.status);
  if (filter.publicId !== undefined) query = query.where('partners.public_id', '=', filter.publicId);
  if (filter.email !== undefined) query = query.where('partners.email', '=', filter.email);
  if (filter.linkKey !== undefined) {
    const linkKey = filter.linkKey;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('referral_links')
          .select('referral_links.id')
          .whereRef('referral_links.partner_id', '=', 'partners.id')
          .where('referral_links.program_id', '=', programId)
          .where('referral_links.key', '=', linkKey),
      ),
    );
  }
  return query.orderBy('partners.id', sort).limit(window.fetch).offset(window.offset).execute();
}
