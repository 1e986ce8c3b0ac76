import type { Insertable, Kysely, Selectable } from 'kysely';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { ReferralLinksTable } from '../../db/domain-tables.ts';
import { type BoundStatement, definePreparedQuery, defineRowsInsert } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/** Links of partners and of customers: the queries both program types share. */
export type LinkOwner = { partnerId: number } | { customerId: number };

const ownerColumn = (owner: LinkOwner) =>
  'partnerId' in owner
    ? (['partner_id', owner.partnerId] as const)
    : (['customer_id', owner.customerId] as const);

/**
 * The new link, or undefined when its key is taken (the table's one business key): nothing is
 * raised in the database (ADR 0053).
 */
export async function insertLink(
  db: Kysely<DB>,
  values: Insertable<ReferralLinksTable>,
): Promise<Selectable<ReferralLinksTable> | undefined> {
  return db
    .insertInto('referral_links')
    .values(values)
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** A customer's default link as a signup writes it: the columns it names, the rest their defaults. */
export interface NewDefaultCustomerLink {
  program_id: number;
  key: string;
  customer_id: number;
  created_at: string;
  updated_at: string;
}

/** Customers' default links as signups write them, not run (db/together.ts). */
export function defaultCustomerLinksStatement(
  db: Kysely<DB>,
  links: readonly NewDefaultCustomerLink[],
): BoundStatement[] {
  return insertDefaultLinks(
    db,
    links.map((link) => ({ ...link, is_default: true })),
  );
}

const insertDefaultLinks = defineRowsInsert<NewDefaultCustomerLink & { is_default: boolean }>(
  'referral_links',
  ['program_id', 'key', 'customer_id', 'is_default', 'created_at', 'updated_at'],
);

/** Which column names a link's owner, per kind of owner. */
const ownerColumnOf = { partner: 'partner_id', customer: 'customer_id' } as const;
export type LinkOwnerKind = keyof typeof ownerColumnOf;

/** The link with `key`; with `kind`, only if an owner of that kind has it. */
export async function findLinkByKey(db: Kysely<DB>, programId: number, key: string, kind?: LinkOwnerKind) {
  let query = db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where('key', '=', key);
  if (kind !== undefined) query = query.where(ownerColumnOf[kind], 'is not', null);
  return query.executeTakeFirst();
}

export interface LinkSearchFilter {
  key?: string;
  ownerId?: number;
}

/** One page of the links of one kind of owner, by `key` and by owner when given, in id order. */
export async function searchLinks(
  db: Kysely<DB>,
  programId: number,
  kind: LinkOwnerKind,
  filter: LinkSearchFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  const column = ownerColumnOf[kind];
  let query = db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where(column, 'is not', null);
  if (filter.key !== undefined) query = query.where('key', '=', filter.key);
  if (filter.ownerId !== undefined) query = query.where(column, '=', filter.ownerId);
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

const linksOf = (column: 'partner_id' | 'customer_id') =>
  definePreparedQuery<Selectable<ReferralLinksTable>, { programId: number; ownerId: number }>((db, param) =>
    db
      .selectFrom('referral_links')
      .selectAll()
      .where('program_id', '=', param('programId'))
      .where(column, '=', param('ownerId'))
      .orderBy('is_default', 'desc')
      .orderBy('created_at', 'asc')
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
  if (!window) return selectLinksOf[column](db, { programId, ownerId: id });
  let query = db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where(column, '=', id)
    .orderBy('is_default', 'desc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc');
  query = query.limit(window.fetch).offset(window.offset);
  return query.execute();
}

/** The links of many owners at once (list pages), keyed by owner id. */
export async function listLinksOfMany(
  db: Kysely<DB>,
  programId: number,
  kind: LinkOwnerKind,
  ownerIds: readonly number[],
) {
  if (ownerIds.length === 0) return [];
  const column = ownerColumnOf[kind];
  return db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where(column, 'in', [...ownerIds])
    .orderBy('is_default', 'desc')
    .orderBy('created_at', 'asc')
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

/**
 * Gives the owner's default link a new key, for owners whose default link key follows their own
 * (refer-a-friend customers: the default link's key is the customer's key).
 */
export async function renameDefaultLink(db: Kysely<DB>, programId: number, owner: LinkOwner, key: string) {
  const [column, id] = ownerColumn(owner);
  await db
    .updateTable('referral_links')
    .set({ key })
    .where('program_id', '=', programId)
    .where(column, '=', id)
    .where('is_default', '=', true)
    .execute();
}

export async function deleteLink(db: Kysely<DB>, programId: number, id: number) {
  await db.deleteFrom('referral_links').where('program_id', '=', programId).where('id', '=', id).execute();
}

/** The program's additional link domains. */
export async function listLinkDomains(db: Kysely<DB>, programId: number) {
  return db.selectFrom('link_domains').select(['id', 'domain']).where('program_id', '=', programId).execute();
}
