import { type Kysely, type SqlBool, sql } from 'kysely';
import { joinCounterParts } from '../../db/counter-parts.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import { type Ranked, topRanked } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Clicks for reports (issue 26), read from the per-day counters (no click rows are kept): the
 * program's (program_counters, every slot) or one owner's (entity_counters_by_day). Read-only.
 */
export type ClickOwner = { kind: 'partner' | 'link' | 'customer'; id: number };

/** The program's clicks per day (every slot's row), as every report and overview asks. */
const selectProgramClicks = definePreparedQuery<
  { day: string; value: number; value_hi: number },
  { programId: number; startDay: string; endDay: string }
>((db, param) =>
  db
    .selectFrom('program_counters')
    .select(['day', 'value', 'value_hi'])
    .where('program_id', '=', param('programId'))
    .where('metric', '=', 'clicks')
    .where('day', '>=', param('startDay'))
    .where('day', '<=', param('endDay')),
);

/** Clicks per UTC day of `[startDay, endDay]`: the program's, or one owner's. */
export async function dailyClicks(
  db: Kysely<DB>,
  programId: number,
  startDay: string,
  endDay: string,
  owner: ClickOwner | undefined,
): Promise<{ day: string; value: bigint }[]> {
  const rows = owner
    ? await db
        .selectFrom('entity_counters_by_day')
        .select(['day', 'value', 'value_hi'])
        .where('program_id', '=', programId)
        .where('owner_kind', '=', owner.kind)
        .where('owner_id', '=', owner.id)
        .where('metric', '=', 'clicks')
        .where('day', '>=', startDay)
        .where('day', '<=', endDay)
        .execute()
    : await selectProgramClicks(db, { programId, startDay, endDay });
  return rows.map((row) => ({ day: row.day, value: joinCounterParts(row.value, row.value_hi) }));
}

/** The partners, links or referrers of a kind with the most clicks over the UTC days `[startDay, endDay]`. */
export async function topClickOwners(
  db: Kysely<DB>,
  programId: number,
  kind: ClickOwner['kind'],
  days: { startDay: string; endDay: string },
  limit: number,
): Promise<Ranked[]> {
  const ranking = db
    .selectFrom('entity_counters_by_day')
    .select([
      sql<number>`owner_id`.as('owner_id'),
      sql<string>`sum(value_hi * ${sql.lit(10 ** 12)} + value)`.as('figure'),
    ])
    .where('program_id', '=', programId)
    .where('owner_kind', '=', kind)
    .where('metric', '=', 'clicks')
    .where('day', '>=', days.startDay)
    .where('day', '<=', days.endDay)
    .groupBy('owner_id')
    .having(sql<SqlBool>`sum(value_hi * ${sql.lit(10 ** 12)} + value) <> 0`);
  return topRanked(db, ranking, limit);
}
