import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ReferralLinksTable } from '../../db/domain-tables.ts';
import { preparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/** Links of partners and of customers: the queries both program types share. */
export type LinkOwner = { partnerId: number } | { customerId: number };

const ownerColumn = (owner: LinkOwner) =>
  'partnerId' in owner
    ? (['partner_id', owner.partnerId] as const)
    : (['customer_id', owner.customerId] as const);

export async function insertLink(db: Kysely<DB>, values: Insertable<ReferralLinksTable>) {
  return db.insertInto('referral_links').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findLinkByKey(db: Kysely<DB>, programId: number, key: string) {
  return db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where('key', '=', key)
    .executeTakeFirst();
}

const linksOf = (column: 'partner_id' | 'customer_id') =>
  preparedQuery<Selectable<ReferralLinksTable>, [programId: number, ownerId: number]>((db) =>
    db
      .selectFrom('referral_links')
      .selectAll()
      .where('program_id', '=', 0)
      .where(column, '=', 0)
      .orderBy('is_default', 'desc')
      .orderBy('id', 'asc'),
  );
const selectLinksOf = { partner_id: linksOf('partner_id'), customer_id: linksOf('customer_id') };

/** Every link of one owner, default first, then in creation order. */
export async function listLinksOf(
  db: Kysely<DB>,
  programId: number,
  owner: LinkOwner,
  window?: { offset: number; fetch: number },
) {
  const [column, id] = ownerColumn(owner);
  if (!window) return selectLinksOf[column](db, programId, id);
  let query = db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where(column, '=', id)
    .orderBy('is_default', 'desc')
    .orderBy('id', 'asc');
  query = query.limit(window.fetch).offset(window.offset);
  return query.execute();
}

/** The links of many owners at once (list pages), keyed by owner id. */
export async function listLinksOfMany(
  db: Kysely<DB>,
  programId: number,
  kind: 'partner' | 'customer',
  ownerIds: readonly number[],
) {
  if (ownerIds.length === 0) return [];
  const column = kind === 'partner' ? 'partner_id' : 'customer_id';
  return db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where(column, 'in', [...ownerIds])
    .orderBy('is_default', 'desc')
    .orderBy('id', 'asc')
    .execute();
}

export async function updateLink(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Partial<Insertable<ReferralLinksTable>>,
) {
  return db
    .updateTable('referral_links')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteLink(db: Kysely<DB>, programId: number, id: number) {
  await db.deleteFrom('referral_links').where('program_id', '=', programId).where('id', '=', id).execute();
}
