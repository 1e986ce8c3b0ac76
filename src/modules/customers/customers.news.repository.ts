import type { Kysely } from 'kysely';
import type { NoticeCursor } from '../../core/notices.ts';
import { createdAfter } from '../../db/creation-order.ts';
import type { DB } from '../../db/tables.ts';

/** Customers created after the cursor up to `until`, in creation order (the welcome e-mail's walk). */
export function listCustomersCreatedAfter(
  db: Kysely<DB>,
  programId: number,
  after: NoticeCursor,
  until: string,
  limit: number,
) {
  return db
    .selectFrom('customers')
    .select(['id', 'key', 'email', 'name', 'surname', 'status', 'created_at'])
    .where('program_id', '=', programId)
    .where(createdAfter(after))
    .where('created_at', '<=', until)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
