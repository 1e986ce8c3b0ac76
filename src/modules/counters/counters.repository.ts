import { type Kysely, sql } from 'kysely';
import { present } from '../../core/present.ts';
import { compareFigures } from '../../core/sales.ts';
import {
  COUNTER_BASE,
  CounterFigures,
  carryingUpdate,
  joinCounterParts,
  splitCounterDelta,
} from '../../db/counter-parts.ts';
import { counterSlot, isPostgres } from '../../db/counter-slots.ts';
import {
  type BoundStatement,
  definePreparedQuery,
  type ParamOf,
  type PreparedQuery,
} from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Per-entity figures (entity_counters). Every figure is exact: deltas are bigints (micro-units of
 * money) or numbers (counts), stored split in two columns (db/counter-parts.ts), and reads answer
 * a `CounterFigures`: `micros(metric)` as a bigint for money, `count(metric)` as a number for
 * counts, iteration over every figure as a bigint.
 */
export { CounterFigures };

export type CounterOwner = { kind: 'partner' | 'customer' | 'link'; id: number };

export interface CounterDelta {
  kind: CounterOwner['kind'];
  id: number;
  metric: string;
  value: bigint | number;
}

/** One figure's split delta (db/counter-parts.ts): both parts are bound as they were split. */
type UpsertParameters = {
  programId: number;
  kind: string;
  ownerId: number;
  metric: string;
  low: number;
  high: number;
};

/** A figure row's key: the figure and its slot (db/counter-slots.ts). */
const ENTITY_KEY = ['program_id', 'owner_kind', 'owner_id', 'metric', 'slot'] as const;

/** Adds a split delta to one figure (the connection's slot of it), creating it. */
const upsertCounterQuery = (db: Kysely<DB>, param: ParamOf<UpsertParameters>) =>
  db
    .insertInto('entity_counters')
    .values({
      program_id: param('programId'),
      owner_kind: param('kind'),
      owner_id: param('ownerId'),
      metric: param('metric'),
      value: param('low'),
      value_hi: param('high'),
      slot: counterSlot(db),
    })
    .onConflict((oc) => oc.columns(ENTITY_KEY).doUpdateSet(carryingUpdate('entity_counters')));

const upsertCounter = definePreparedQuery<never, UpsertParameters>(upsertCounterQuery);

/** The upsert's parameters for one delta. */
function upsertParameters(programId: number, delta: CounterDelta): UpsertParameters {
  const [low, high] = splitCounterDelta(delta.value);
  return { programId, kind: delta.kind, ownerId: delta.id, metric: delta.metric, low, high };
}

const isZero = (value: bigint | number) => value === 0 || value === 0n;

/** Adds to one figure and answers its new value (every slot), exactly, in the caller's transaction. */
export async function addCounterDelta(
  db: Kysely<DB>,
  programId: number,
  delta: CounterDelta,
): Promise<bigint> {
  await upsertCounter(db, upsertParameters(programId, delta));
  const figures = await readEntityCounters(db, programId, { kind: delta.kind, id: delta.id });
  return figures.micros(delta.metric);
}

/** Parameters of an upsert of `n` figures: figure `i` has `kind${i}`, `owner${i}`, `metric${i}`, `low${i}`, `high${i}`. */
type ManyUpsertParameters = { programId: number } & Record<`kind${number}` | `metric${number}`, string> &
  Record<`owner${number}` | `low${number}` | `high${number}`, number>;

/** Most figures one statement writes; a write that moves more uses several. */
const MAX_ROWS = 32;

/** Upserts of 2 … MAX_ROWS figures in one statement, compiled once per row count. */
const manyUpserts = Array.from({ length: MAX_ROWS + 1 }, (_, rows) =>
  definePreparedQuery<never, ManyUpsertParameters>((db, param) =>
    db
      .insertInto('entity_counters')
      .values(
        Array.from({ length: rows }, (_, i) => ({
          program_id: param('programId'),
          owner_kind: param(`kind${i}`),
          owner_id: param(`owner${i}`),
          metric: param(`metric${i}`),
          value: param(`low${i}`),
          value_hi: param(`high${i}`),
          slot: counterSlot(db),
        })),
      )
      .onConflict((oc) => oc.columns(ENTITY_KEY).doUpdateSet(carryingUpdate('entity_counters'))),
  ),
);

/**
 * The deltas with one entry per figure (summed), zeros dropped, in a fixed (kind, id, metric)
 * order: a multi-row upsert may touch each row once, and writers that lock rows in one order
 * cannot deadlock (PostgreSQL). A write moves about ten figures: a linear search suffices.
 */
function mergedDeltas(deltas: readonly CounterDelta[]): CounterDelta[] {
  const merged: CounterDelta[] = [];
  for (const delta of deltas) {
    const same = merged.find((d) => d.id === delta.id && d.metric === delta.metric && d.kind === delta.kind);
    if (same) same.value = BigInt(same.value) + BigInt(delta.value);
    else merged.push({ kind: delta.kind, id: delta.id, metric: delta.metric, value: delta.value });
  }
  return merged.filter((delta) => !isZero(delta.value)).sort(compareFigures);
}

/**
 * Adds to the figures of several owners in the caller's transaction, in one statement (up to
 * MAX_ROWS figures each): a sale moves five to ten figures, and one statement instead of one per
 * figure keeps the round trips, and on PostgreSQL the time its row locks are held, short.
 */
export async function addCounterDeltas(db: Kysely<DB>, programId: number, deltas: readonly CounterDelta[]) {
  for (const [upsert, params] of counterUpserts(programId, deltas)) await upsert(db, params);
}

/** The statements `addCounterDeltas` runs, not run (to go with other writes, db/together.ts). */
export function counterDeltaStatements(
  db: Kysely<DB>,
  programId: number,
  deltas: readonly CounterDelta[],
): BoundStatement[] {
  return counterUpserts(programId, deltas).map(([upsert, params]) => upsert.statement(db, params));
}

type Upsert = readonly [PreparedQuery<never, never>, never];

/** The upserts that add `deltas`, one per MAX_ROWS figures, with their parameters. */
function counterUpserts(programId: number, deltas: readonly CounterDelta[]): Upsert[] {
  const figures = mergedDeltas(deltas);
  const upserts: Upsert[] = [];
  for (let from = 0; from < figures.length; from += MAX_ROWS) {
    const chunk = figures.slice(from, from + MAX_ROWS);
    const [only, ...others] = chunk;
    if (only && others.length === 0) {
      upserts.push([upsertCounter, upsertParameters(programId, only)] as unknown as Upsert);
      continue;
    }
    const params = { programId } as ManyUpsertParameters;
    chunk.forEach((delta, i) => {
      const [low, high] = splitCounterDelta(delta.value);
      params[`kind${i}`] = delta.kind;
      params[`owner${i}`] = delta.id;
      params[`metric${i}`] = delta.metric;
      params[`low${i}`] = low;
      params[`high${i}`] = high;
    });
    upserts.push([
      present(manyUpserts[chunk.length], 'an upsert of MAX_ROWS rows or fewer'),
      params,
    ] as unknown as Upsert);
  }
  return upserts;
}

/** Adds each delta to the owner's figures, creating rows as needed, in the caller's transaction. */
export async function addToEntityCounters(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  deltas: Record<string, bigint | number>,
): Promise<void> {
  await addCounterDeltas(
    db,
    programId,
    Object.entries(deltas).map(([metric, value]) => ({ kind: owner.kind, id: owner.id, metric, value })),
  );
}

type FigureParameters = { programId: number; kind: string; ownerId: number; metric: string };

/** A figure's rows (its slots), locked on PostgreSQL until the transaction ends. */
const selectFigureRowsForUpdate = definePreparedQuery<
  { slot: number; value: number | bigint; value_hi: number | bigint },
  FigureParameters
>((db, param) => {
  const query = db
    .selectFrom('entity_counters')
    .select(['slot', 'value', 'value_hi'])
    .where('program_id', '=', param('programId'))
    .where('owner_kind', '=', param('kind'))
    .where('owner_id', '=', param('ownerId'))
    .where('metric', '=', param('metric'))
    .orderBy('slot');
  // SQLite's write transaction already excludes every other writer.
  return isPostgres(db) ? query.forUpdate() : query;
});

/** Adds a split delta to one existing slot row of a figure. */
const addToSlot = definePreparedQuery<never, FigureParameters & { slot: number; low: bigint; high: bigint }>(
  (db, param) =>
    db
      .updateTable('entity_counters')
      .set({
        value: sql<number>`(value + ${param('low')}) % ${sql.lit(COUNTER_BASE)}`,
        value_hi: sql<number>`value_hi + ${param('high')} + (value + ${param('low')}) / ${sql.lit(COUNTER_BASE)}`,
      })
      .where('program_id', '=', param('programId'))
      .where('owner_kind', '=', param('kind'))
      .where('owner_id', '=', param('ownerId'))
      .where('metric', '=', param('metric'))
      .where('slot', '=', param('slot')),
);

/**
 * Subtracts `amount` from one figure only if it stays at or above zero; answers whether it did,
 * in the caller's transaction. The figure's slot rows are locked first (PostgreSQL), so concurrent
 * withdrawals queue and each sees the one before: never an overdraw (balance credits). A slot row
 * created after the lock can only be a sale's addition, which makes the figure larger. The
 * subtraction goes to the first slot, which may then hold a negative part; the sum is what counts.
 */
export async function subtractIfAvailable(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  metric: string,
  amount: bigint | number,
): Promise<boolean> {
  const figure = { programId, kind: owner.kind, ownerId: owner.id, metric };
  const rows = await selectFigureRowsForUpdate(db, figure);
  const available = rows.reduce((sum, row) => sum + joinCounterParts(row.value, row.value_hi), 0n);
  const [first] = rows;
  if (!first || available < BigInt(amount)) return false;
  // Bound as bigints: better-sqlite3 binds a JS number as REAL, and `/` would then divide exactly.
  const [low, high] = splitCounterDelta(-BigInt(amount)).map(BigInt) as [bigint, bigint];
  await addToSlot(db, { ...figure, slot: first.slot, low, high });
  return true;
}

const selectEntityCounters = definePreparedQuery<
  { metric: string; value: number | bigint; value_hi: number | bigint },
  { programId: number; kind: CounterOwner['kind']; ownerId: number }
>((db, param) =>
  db
    .selectFrom('entity_counters')
    .select(['metric', 'value', 'value_hi'])
    .where('program_id', '=', param('programId'))
    .where('owner_kind', '=', param('kind'))
    .where('owner_id', '=', param('ownerId')),
);

/** Every figure of one owner. */
export async function readEntityCounters(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
): Promise<CounterFigures> {
  return CounterFigures.of(
    await selectEntityCounters(db, { programId, kind: owner.kind, ownerId: owner.id }),
  );
}

type CountersWithDaysParams = {
  programId: number;
  kind: CounterOwner['kind'];
  ownerId: number;
  metric: string;
  from: string;
};

/** Every figure of an owner and one metric's days since `from`, in one statement (the day is null on a figure). */
const selectEntityCountersWithDays = definePreparedQuery<
  { metric: string; day: string | null; value: number | bigint; value_hi: number | bigint },
  CountersWithDaysParams
>((db, param) =>
  db
    .selectFrom('entity_counters')
    .select(['metric', sql<string | null>`null`.as('day'), 'value', 'value_hi'])
    .where('program_id', '=', param('programId'))
    .where('owner_kind', '=', param('kind'))
    .where('owner_id', '=', param('ownerId'))
    .unionAll((eb) =>
      eb
        .selectFrom('entity_counters_by_day')
        .select(['metric', 'day', 'value', 'value_hi'])
        .where('program_id', '=', param('programId'))
        .where('owner_kind', '=', param('kind'))
        .where('owner_id', '=', param('ownerId'))
        .where('metric', '=', param('metric'))
        .where('day', '>=', param('from')),
    ),
);

/**
 * `readEntityCounters` and `readDailyCounter` of one owner at once: what a dashboard shows, one
 * statement instead of two.
 */
export async function readEntityCountersWithDays(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  metric: string,
  from: string,
): Promise<{ figures: CounterFigures; days: { day: string; value: bigint }[] }> {
  const rows = await selectEntityCountersWithDays(db, {
    programId,
    kind: owner.kind,
    ownerId: owner.id,
    metric,
    from,
  });
  const days = rows
    .filter((row) => row.day !== null)
    .map((row) => ({ day: row.day as string, value: joinCounterParts(row.value, row.value_hi) }))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  return { figures: CounterFigures.of(rows.filter((row) => row.day === null)), days };
}

/** Drops an owner's figures: the partner or customer they describe is being deleted. */
export async function deleteEntityCounters(db: Kysely<DB>, programId: number, owner: CounterOwner) {
  await db
    .deleteFrom('entity_counters')
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id)
    .execute();
}

type DailyUpsertParameters = UpsertParameters & { day: string };

/** Adds a split delta to one owner's figure of one day, creating it. */
const upsertDailyCounter = definePreparedQuery<never, DailyUpsertParameters>((db, param) =>
  db
    .insertInto('entity_counters_by_day')
    .values({
      program_id: param('programId'),
      owner_kind: param('kind'),
      owner_id: param('ownerId'),
      metric: param('metric'),
      day: param('day'),
      value: param('low'),
      value_hi: param('high'),
    })
    .onConflict((oc) =>
      oc
        .columns(['program_id', 'owner_kind', 'owner_id', 'metric', 'day'])
        .doUpdateSet(carryingUpdate('entity_counters_by_day')),
    ),
);

/**
 * Adds to the per-day figures of several owners (entity_counters_by_day) in the caller's
 * transaction, one statement per figure in the fixed (kind, id, metric) order; the running totals
 * stay in entity_counters (`addCounterDeltas`), which the API reads.
 */
export async function addDailyCounterDeltas(
  db: Kysely<DB>,
  programId: number,
  day: string,
  deltas: readonly CounterDelta[],
) {
  for (const delta of mergedDeltas(deltas)) {
    await upsertDailyCounter(db, { ...upsertParameters(programId, delta), day });
  }
}

/** One owner's figure per day, oldest first, from `from` on (reports over time). */
export async function readDailyCounter(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  metric: string,
  from: string,
): Promise<{ day: string; value: bigint }[]> {
  const rows = await db
    .selectFrom('entity_counters_by_day')
    .select(['day', 'value', 'value_hi'])
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id)
    .where('metric', '=', metric)
    .where('day', '>=', from)
    .orderBy('day')
    .execute();
  return rows.map((row) => ({ day: row.day, value: joinCounterParts(row.value, row.value_hi) }));
}
