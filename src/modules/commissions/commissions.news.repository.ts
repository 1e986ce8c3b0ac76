import type { Kysely } from 'kysely';
import type { NoticeCursor } from '../../core/notices.ts';
import { createdAfter } from '../../db/creation-order.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Commissions a partner earned (sales' and manual ones; not clawbacks, not denied or voided ones)
 * created after `after` and no later than `until`, in creation order: the `rewards_created` index.
 */
export function listCommissionsCreatedAfter(
  db: Kysely<DB>,
  programId: number,
  after: NoticeCursor,
  until: string,
  limit: number,
) {
  return db
    .selectFrom('rewards')
    .select(['id', 'created_at', 'partner_id', 'role', 'status', 'amount', 'amount_units', 'deleted_at'])
    .where('program_id', '=', programId)
    .where(createdAfter(after))
    .where('created_at', '<=', until)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
