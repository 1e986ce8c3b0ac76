import { type Kysely, sql } from 'kysely';
import { type OwnerLabel, programScope, type Ranked, topRanked } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';

/** Read-only report queries of promotion codes (issue 26): redemptions ranked, codes' labels. */

/** The promotion codes redeemed most in `[from, until)`. */
export async function topRedeemedCodes(
  db: Kysely<DB>,
  programId: number,
  window: { from: string; until: string },
  limit: number,
): Promise<Ranked[]> {
  const ranking = db
    .selectFrom('promotion_code_redemptions')
    .select([sql<number>`promotion_code_id`.as('owner_id'), sql<string>`count(*)`.as('figure')])
    .where('program_id', '=', programId)
    .where('redeemed_at', '>=', window.from)
    .where('redeemed_at', '<', window.until)
    .groupBy('promotion_code_id');
  return topRanked(db, ranking, limit);
}

/** The code a ranking of promotion codes shows (as id and key) for each code id. */
export async function promotionCodeLabels(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
): Promise<OwnerLabel[]> {
  return db
    .selectFrom('promotion_codes')
    .select(['id as owner_id', 'code as id', 'code as key', sql<string | null>`null`.as('name')])
    .where(programScope('program_id'), '=', programId)
    .where('id', 'in', ids)
    .execute();
}
