import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { carryingUpdate, joinCounterParts, splitCounterDelta } from '../../db/counter-parts.ts';
import { counterSlot } from '../../db/counter-slots.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import { type BoundStatement, definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
import type { DB, ProgramsTable } from '../../db/tables.ts';

const selectProgram = definePreparedQuery<Selectable<ProgramsTable>, { programId: number }>((db, param) =>
  db.selectFrom('programs').selectAll().where('id', '=', param('programId')),
);

export async function findProgram(db: Kysely<DB>, programId: number) {
  return (await selectProgram(db, { programId }))[0];
}

const selectProgramByPublicId = definePreparedQuery<Selectable<ProgramsTable>, { publicId: string }>(
  (db, param) => db.selectFrom('programs').selectAll().where('public_id', '=', param('publicId')),
);

/** A program by its public id, as the public pages name it (never by its internal id). */
export async function findProgramByPublicId(db: Kysely<DB>, publicId: string) {
  return (await selectProgramByPublicId(db, { publicId }))[0];
}

const selectProgramByPortalHost = definePreparedQuery<Selectable<ProgramsTable>, { host: string }>(
  (db, param) => db.selectFrom('programs').selectAll().where('portal_host', '=', param('host')),
);

/** The program whose partner portal has this host name (index programs_portal_host). */
export async function findProgramByPortalHost(db: Kysely<DB>, host: string) {
  return (await selectProgramByPortalHost(db, { host }))[0];
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
 * (db/counter-parts.ts) are summed apart and joined exactly in `findProgramWithWindowSums`.
 */
type WindowParams = { programId: number; beforeFrom: string; currentFrom: string; today: string };

/** The current window is `[currentFrom, today]`, the one before `[beforeFrom, currentFrom)`. */
const windowSum = (
  param: ParamOf<WindowParams>,
  part: 'value' | 'value_hi',
  window: 'current' | 'before',
) => {
  const inWindow =
    window === 'current'
      ? sql`day >= ${param('currentFrom')} and day <= ${param('today')}`
      : sql`day >= ${param('beforeFrom')} and day < ${param('currentFrom')}`;
  return sql<number | bigint>`cast(sum(case when ${inWindow} then ${sql.ref(part)} else 0 end) as bigint)`;
};

type WindowSumRow = {
  metric: string;
  current: number | bigint;
  current_hi: number | bigint;
  before: number | bigint;
  before_hi: number | bigint;
};

/** Each metric's window sums of one program, as a subquery. */
const windowSums = (db: Kysely<DB>, param: ParamOf<WindowParams>) =>
  db
    .selectFrom('program_counters')
    .select([
      'metric',
      windowSum(param, 'value', 'current').as('current'),
      windowSum(param, 'value_hi', 'current').as('current_hi'),
      windowSum(param, 'value', 'before').as('before'),
      windowSum(param, 'value_hi', 'before').as('before_hi'),
    ])
    .where('program_id', '=', param('programId'))
    .where('day', '>=', param('beforeFrom'))
    .where('day', '<=', param('today'))
    .groupBy('metric');

/** The program's row on each of its metrics' rows (once, with nulls, when it has none yet). */
const selectProgramWithWindowSums = definePreparedQuery<
  Selectable<ProgramsTable> & { [K in keyof WindowSumRow]: WindowSumRow[K] | null },
  WindowParams
>((db, param) =>
  db
    .selectFrom('programs')
    .leftJoin(windowSums(db, param).as('sums'), (join) => join.onTrue())
    .selectAll('programs')
    .select(['sums.metric', 'sums.current', 'sums.current_hi', 'sums.before', 'sums.before_hi'])
    .where('programs.id', '=', param('programId')),
);

/**
 * The program with its metrics' sums over the current window and the one before, in one
 * statement (one round trip on PostgreSQL); undefined when there is no such program.
 */
export async function findProgramWithWindowSums(
  db: Kysely<DB>,
  programId: number,
  window: { beforeFrom: string; currentFrom: string; today: string },
) {
  const rows = await selectProgramWithWindowSums(db, { programId, ...window });
  const [first] = rows;
  if (!first) return undefined;
  const { metric: _m, current: _c, current_hi: _ch, before: _b, before_hi: _bh, ...row } = first;
  const sums = rows.flatMap((sum) =>
    sum.metric === null
      ? []
      : [
          {
            metric: sum.metric,
            current: joinCounterParts(sum.current ?? 0, sum.current_hi ?? 0),
            before: joinCounterParts(sum.before ?? 0, sum.before_hi ?? 0),
          },
        ],
  );
  return { row, sums };
}

/**
 * The upsert's parameters for `n` metrics: metric `i` has `metric${i}` and its split delta
 * `value${i}`, `valueHi${i}` (i < n).
 */
type CounterUpsertParams = { programId: number; day: string } & Record<`metric${number}`, string> &
  Record<`value${number}` | `valueHi${number}`, number>;

/** One compiled upsert per number of metrics: a sale moves one to three (two to six rows). */
const upserts = new Map<number, ReturnType<typeof counterUpsert>>();

/** Two rows per metric, the day's and the running total's, in that order, in the connection's slot. */
function counterUpsert(metrics: number) {
  return definePreparedQuery<never, CounterUpsertParams>((db, param) =>
    db
      .insertInto('program_counters')
      .values(
        Array.from({ length: metrics }, (_, i) =>
          // The running total's day is written by the builder: every call binds it as compiled.
          [param('day'), 'total'].map((day) => ({
            program_id: param('programId'),
            metric: param(`metric${i}`),
            day,
            value: param(`value${i}`),
            value_hi: param(`valueHi${i}`),
            slot: counterSlot(db),
          })),
        ).flat(),
      )
      .onConflict((oc) =>
        oc.columns(['program_id', 'metric', 'day', 'slot']).doUpdateSet(carryingUpdate('program_counters')),
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
  const upsert = countersUpsert(programId, day, deltas);
  if (upsert) await upsert.query(db, upsert.params);
}

/** The statement `addToCounters` runs, not run; undefined when every delta is zero. */
export function countersStatement(
  db: Kysely<DB>,
  programId: number,
  day: string,
  deltas: Record<string, bigint | number>,
): BoundStatement | undefined {
  const upsert = countersUpsert(programId, day, deltas);
  return upsert?.query.statement(db, upsert.params);
}

function countersUpsert(programId: number, day: string, deltas: Record<string, bigint | number>) {
  const params: CounterUpsertParams = { programId, day };
  let metrics = 0;
  for (const [metric, delta] of Object.entries(deltas)) {
    if (delta === 0 || delta === 0n) continue;
    const [value, valueHi] = splitCounterDelta(delta);
    params[`metric${metrics}`] = metric;
    params[`value${metrics}`] = value;
    params[`valueHi${metrics}`] = valueHi;
    metrics += 1;
  }
  if (metrics === 0) return undefined;
  let upsert = upserts.get(metrics);
  if (!upsert) upserts.set(metrics, (upsert = counterUpsert(metrics)));
  return { query: upsert, params };
}

// Program management for the admin API and the CLI.

export async function insertProgram(db: Kysely<DB>, values: Insertable<ProgramsTable>) {
  return db.insertInto('programs').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findProgramByIdOrPublicId(db: Kysely<DB>, id: string) {
  const query = db.selectFrom('programs').selectAll();
  return (
    /^\d{1,15}$/.test(id) ? query.where('id', '=', Number(id)) : query.where('public_id', '=', id)
  ).executeTakeFirst();
}

export async function listPrograms(
  db: Kysely<DB>,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  return db.selectFrom('programs').selectAll().$call(pageInCreationOrder(sort, window)).execute();
}

/** Programs of one type with their settings, by id after `after` (a background step walks them all). */
export async function listProgramsOfType(
  db: Kysely<DB>,
  type: ProgramsTable['type'],
  after: number,
  limit: number,
) {
  return db
    .selectFrom('programs')
    .select(['id', 'settings'])
    .where('type', '=', type)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}
