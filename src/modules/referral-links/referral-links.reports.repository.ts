import { type Kysely, sql } from 'kysely';
import { type OwnerLabel, programScope } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';

/** The id and key a ranking of links shows for each link id (links have no name). Read-only (issue 26). */
export async function linkLabels(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
): Promise<OwnerLabel[]> {
  return db
    .selectFrom('referral_links')
    .select(['id as owner_id', 'key as id', 'key', sql<string | null>`null`.as('name')])
    .where(programScope('program_id'), '=', programId)
    .where('id', 'in', ids)
    .execute();
}
