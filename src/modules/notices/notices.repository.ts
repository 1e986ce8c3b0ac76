import type { Kysely } from 'kysely';
import type { NoticeCursor } from '../../core/notices.ts';
import type { DB } from '../../db/tables.ts';
import './notices.tables.ts';

export type NoticeKind = 'partner_welcome' | 'partner_applied' | 'new_commissions' | 'customer_welcome';

export async function readCursor(
  db: Kysely<DB>,
  programId: number,
  kind: NoticeKind,
): Promise<NoticeCursor | undefined> {
  const row = await db
    .selectFrom('notice_cursors')
    .select(['created_at', 'last_id'])
    .where('program_id', '=', programId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row ? { createdAt: row.created_at, id: Number(row.last_id) } : undefined;
}

/**
 * Moves the cursor from `from` (what this pass read) to `to`, in the transaction that queues the
 * e-mails: answers false when another worker moved it first, and the caller then rolls back, so
 * each row is announced once however many workers run.
 */
export async function moveCursor(
  trx: Kysely<DB>,
  programId: number,
  kind: NoticeKind,
  from: NoticeCursor | undefined,
  to: NoticeCursor,
): Promise<boolean> {
  const values = { created_at: to.createdAt, last_id: to.id };
  if (from === undefined) {
    const inserted = await trx
      .insertInto('notice_cursors')
      .values({ program_id: programId, kind, ...values })
      .onConflict((oc) => oc.columns(['program_id', 'kind']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }
  const updated = await trx
    .updateTable('notice_cursors')
    .set(values)
    .where('program_id', '=', programId)
    .where('kind', '=', kind)
    .where('created_at', '=', from.createdAt)
    .where('last_id', '=', from.id)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
