import type { Kysely, Updateable } from 'kysely';
import type { DB, ProgramsTable } from '../../db/tables.ts';

export async function findProgram(db: Kysely<DB>, programId: number) {
  return db.selectFrom('programs').selectAll().where('id', '=', programId).executeTakeFirst();
}

export async function updateProgram(db: Kysely<DB>, programId: number, values: Updateable<ProgramsTable>) {
  await db.updateTable('programs').set(values).where('id', '=', programId).execute();
}

/** Running totals and the daily figures since `sinceDay`. */
export async function readCounters(db: Kysely<DB>, programId: number, sinceDay: string) {
  return db
    .selectFrom('program_counters')
    .select(['metric', 'day', 'value'])
    .where('program_id', '=', programId)
    .where((eb) => eb.or([eb('day', '=', 'total'), eb('day', '>=', sinceDay)]))
    .execute();
}

/** Adds each delta to the day's row and to the running total, creating rows as needed. */
export async function addToCounters(
  db: Kysely<DB>,
  programId: number,
  day: string,
  deltas: Record<string, number>,
) {
  const rows = Object.entries(deltas)
    .filter(([, delta]) => delta !== 0)
    .flatMap(([metric, value]) => [
      { program_id: programId, metric, day, value },
      { program_id: programId, metric, day: 'total', value },
    ]);
  if (rows.length === 0) return;
  await db
    .insertInto('program_counters')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['program_id', 'metric', 'day']).doUpdateSet((eb) => ({
        value: eb('program_counters.value', '+', eb.ref('excluded.value')),
      })),
    )
    .execute();
}
