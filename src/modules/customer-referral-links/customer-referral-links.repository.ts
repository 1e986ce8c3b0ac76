import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';

/** Queries of customer-owned referral links (refer-a-friend programs); partner links never match. */

export async function findCustomerLinkByKey(db: Kysely<DB>, programId: number, key: string) {
  return db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where('key', '=', key)
    .where('customer_id', 'is not', null)
    .executeTakeFirst();
}

/** The default link follows the customer's key (spec: the default link's key is the customer's key). */
export async function renameDefaultLink(db: Kysely<DB>, programId: number, customerId: number, key: string) {
  await db
    .updateTable('referral_links')
    .set({ key })
    .where('program_id', '=', programId)
    .where('customer_id', '=', customerId)
    .where('is_default', '=', true)
    .execute();
}

export interface CustomerLinkFilter {
  key?: string;
  customerId?: number;
}

export async function searchCustomerLinks(
  db: Kysely<DB>,
  programId: number,
  filter: CustomerLinkFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db
    .selectFrom('referral_links')
    .selectAll()
    .where('program_id', '=', programId)
    .where('customer_id', 'is not', null);
  if (filter.key !== undefined) query = query.where('key', '=', filter.key);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  return query.orderBy('id', sort).limit(window.fetch).offset(window.offset).execute();
}
