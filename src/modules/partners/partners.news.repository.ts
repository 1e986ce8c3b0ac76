import type { Kysely } from 'kysely';
import type { NoticeCursor } from '../../core/notices.ts';
import { createdAfter } from '../../db/creation-order.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Partners created after `after` and no later than `until`, in creation order (the
 * `partners_visible` index: a new partner is not archived), for the welcome e-mails.
 */
export function listPartnersCreatedAfter(
  db: Kysely<DB>,
  programId: number,
  after: NoticeCursor,
  until: string,
  limit: number,
) {
  return db
    .selectFrom('partners')
    .selectAll()
    .where('program_id', '=', programId)
    .where('status', '<>', 'archived')
    .where(createdAfter(after))
    .where('created_at', '<=', until)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
