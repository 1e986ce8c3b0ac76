import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { carryingUpdate, joinCounterParts, splitCounterDelta } from '../../db/counter-parts.ts';
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

/**
 * Each metric's sums over the current window and the one before, added up by the database: a
 * busy program has a row per metric and day, and summing in SQL returns a handful of rows
 * instead of every day of sixty (index program_counters_by_day). The two parts of each figure
 * (db/counter-parts.ts) are summed apart and joined exactly in `readWindowSums`.
 */
const windowSum = (part: 'value' | 'value_hi', upper: '<=' | '<') => {
  const inWindow = sql`day >= ${''} and day ${sql.raw(upper)} ${''}`;
  return sql<number | bigint>`cast(sum(case when ${inWindow} then ${sql.ref(part)} else 0 end) as bigint)`;
};

type WindowSumRow = {
  metric: string;
  current: number | bigint;
  current_hi: number | bigint;
  before: number | bigint;
  before_hi: number | bigint;
};

const selectWindowSums = preparedQuery<WindowSumRow, unknown[]>((db) =>
  db
    .selectFrom('program_counters')
    .select([
      'metric',
      windowSum('value', '<=').as('current'),
      windowSum('value_hi', '<=').as('current_hi'),
      windowSum('value', '<').as('before'),
      windowSum('value_hi', '<').as('before_hi'),
    ])
    .where('program_id', '=', 0)
    .where('day', '>=', '')
    .where('day', '<=', '')
    .groupBy('metric'),
);

/** Every metric's exact sums over the current window and the one before. */
export async function readWindowSums(
  db: Kysely<DB>,
  programId: number,
  window: { beforeFrom: string; currentFrom: string; today: string },
): Promise<{ metric: string; current: bigint; before: bigint }[]> {
  const { beforeFrom, currentFrom, today } = window;
  const rows = await selectWindowSums(
    db,
    ...[currentFrom, today, currentFrom, today, beforeFrom, currentFrom, beforeFrom, currentFrom],
    programId,
    beforeFrom,
    today,
  );
  return rows.map((row) => ({
    metric: row.metric,
    current: joinCounterParts(row.current ?? 0, row.current_hi ?? 0),
    before: joinCounterParts(row.before ?? 0, row.before_hi ?? 0),
  }));
}

type CounterRow = { program_id: number; metric: string; day: string; value: number; value_hi: number };

/** One compiled upsert per number of rows: sales move two to six figures at once. */
const upserts = new Map<number, ReturnType<typeof counterUpsert>>();

function counterUpsert(rows: number) {
  const placeholder: CounterRow = { program_id: 0, metric: '', day: '', value: 0, value_hi: 0 };
  return preparedQuery<never, unknown[]>((db) =>
    db
      .insertInto('program_counters')
      .values(Array.from({ length: rows }, () => placeholder))
      .onConflict((oc) =>
        oc.columns(['program_id', 'metric', 'day']).doUpdateSet(carryingUpdate('program_counters')),
      ),
  );
}

/**
 * Adds each delta (a count, or micro-units as a bigint) to the day's row and to the running
 * total, creating rows as needed; deltas are split as db/counter-parts.ts describes.
 */
export async function addToCounters(
  db: Kysely<DB>,
  programId: number,
  day: string,
  deltas: Record<string, bigint | number>,
) {
  const rows = Object.entries(deltas)
    .filter(([, delta]) => delta !== 0 && delta !== 0n)
    .flatMap(([metric, delta]): CounterRow[] => {
      const [value, value_hi] = splitCounterDelta(delta);
      return [
        { program_id: programId, metric, day, value, value_hi },
        { program_id: programId, metric, day: 'total', value, value_hi },
      ];
    });
  if (rows.length === 0) return;
  let upsert = upserts.get(rows.length);
  if (!upsert) upserts.set(rows.length, (upsert = counterUpsert(rows.length)));
  await upsert(db, ...rows.flatMap((row) => [row.program_id, row.metric, row.day, row.value, row.value_hi]));
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
