import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { preparedQuery } from '../../db/prepared.ts';
import type { DB, ProgramsTable } from '../../db/tables.ts';

const selectProgram = preparedQuery<Selectable<ProgramsTable>, [programId: number]>((db) =>
  db.selectFrom('programs').selectAll().where('id', '=', 0),
);

export async function findProgram(db: Kysely<DB>, programId: number) {
  return (await selectProgram(db, programId))[0];
}

/** What an invitation e-mail says about the program. */
export async function findProgramNameAndWebsite(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('programs')
    .select(['name', 'website'])
    .where('id', '=', programId)
    .executeTakeFirstOrThrow();
}

export async function updateProgram(db: Kysely<DB>, programId: number, values: Updateable<ProgramsTable>) {
  await db.updateTable('programs').set(values).where('id', '=', programId).execute();
}

/** Running totals and the daily figures since `sinceDay`. */
/**
 * Each metric's sums over the current window and the one before, added up by the database: a
 * busy program has a row per metric and day, and summing in SQL returns a handful of rows
 * instead of every day of sixty (index program_counters_by_day).
 */
const selectWindowSums = preparedQuery<
  { metric: string; current: number; before: number },
  [
    currentFrom: string,
    today: string,
    beforeFrom: string,
    currentFrom: string,
    programId: number,
    beforeFrom: string,
    today: string,
  ]
>((db) =>
  db
    .selectFrom('program_counters')
    .select([
      'metric',
      sql<number>`cast(sum(case when day >= ${''} and day <= ${''} then value else 0 end) as bigint)`.as(
        'current',
      ),
      sql<number>`cast(sum(case when day >= ${''} and day < ${''} then value else 0 end) as bigint)`.as(
        'before',
      ),
    ])
    .where('program_id', '=', 0)
    .where('day', '>=', '')
    .where('day', '<=', '')
    .groupBy('metric'),
);

export async function readWindowSums(
  db: Kysely<DB>,
  programId: number,
  window: { beforeFrom: string; currentFrom: string; today: string },
) {
  const { beforeFrom, currentFrom, today } = window;
  return selectWindowSums(db, currentFrom, today, beforeFrom, currentFrom, programId, beforeFrom, today);
}

type CounterRow = { program_id: number; metric: string; day: string; value: number };

/** One compiled upsert per number of rows: sales move two to six figures at once. */
const upserts = new Map<number, ReturnType<typeof counterUpsert>>();

function counterUpsert(rows: number) {
  const placeholder: CounterRow = { program_id: 0, metric: '', day: '', value: 0 };
  return preparedQuery<never, unknown[]>((db) =>
    db
      .insertInto('program_counters')
      .values(Array.from({ length: rows }, () => placeholder))
      .onConflict((oc) =>
        oc.columns(['program_id', 'metric', 'day']).doUpdateSet((eb) => ({
          value: eb('program_counters.value', '+', eb.ref('excluded.value')),
        })),
      ),
  );
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
    .flatMap(([metric, value]): CounterRow[] => [
      { program_id: programId, metric, day, value },
      { program_id: programId, metric, day: 'total', value },
    ]);
  if (rows.length === 0) return;
  let upsert = upserts.get(rows.length);
  if (!upsert) upserts.set(rows.length, (upsert = counterUpsert(rows.length)));
  await upsert(db, ...rows.flatMap((row) => [row.program_id, row.metric, row.day, row.value]));
}

// Program management for the admin API and the CLI.

export async function insertProgram(db: Kysely<DB>, values: Insertable<ProgramsTable>) {
  return db.insertInto('programs').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findProgramByIdOrPublicId(db: Kysely<DB>, id: string) {
  const query = db.selectFrom('programs').selectAll();
  return (
    /^\d+$/.test(id) ? query.where('id', '=', Number(id)) : query.where('public_id', '=', id)
  ).executeTakeFirst();
}

export async function listPrograms(
  db: Kysely<DB>,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  return db
    .selectFrom('programs')
    .selectAll()
    .orderBy('created_at', sort)
    .orderBy('id', sort)
    .limit(window.fetch)
    .offset(window.offset)
    .execute();
}
