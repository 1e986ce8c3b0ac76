import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';
import type { ActivityLogTable } from './activity.tables.ts';
import './activity.tables.ts';

/** Rows of the activity log, always of one program. */

const ROWS_PER_INSERT = 100;

export async function insertEntries(db: Kysely<DB>, rows: readonly Insertable<ActivityLogTable>[]) {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    await db
      .insertInto('activity_log')
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .execute();
}

/**
 * One page plus one row, newest first by when each entry was made: an API write's entry is
 * stored with its batch, after console writes made since (see ApiWriteLog).
 */
export function listEntries(db: Kysely<DB>, programId: number, window: { offset: number; fetch: number }) {
  return db
    .selectFrom('activity_log')
    .selectAll()
    .where('program_id', '=', programId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(window.fetch)
    .offset(window.offset)
    .execute();
}
