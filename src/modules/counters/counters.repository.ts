import { type Kysely, sql } from 'kysely';
import { compareFigures } from '../../core/sales.ts';
import {
  COUNTER_BASE,
  CounterFigures,
  carryingUpdate,
  joinCounterParts,
  splitCounterDelta,
} from '../../db/counter-parts.ts';
import { definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
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

/** Adds a split delta to one figure, creating it. */
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
    })
    .onConflict((oc) =>
      oc
        .columns(['program_id', 'owner_kind', 'owner_id', 'metric'])
        .doUpdateSet(carryingUpdate('entity_counters')),
    );

const upsertCounter = definePreparedQuery<never, UpsertParameters>(upsertCounterQuery);

const upsertCounterReturning = definePreparedQuery<
  { value: number | bigint; value_hi: number | bigint },
  UpsertParameters
>((db, param) => upsertCounterQuery(db, param).returning(['value', 'value_hi']));

/** The upsert's parameters for one delta. */
function upsertParameters(programId: number, delta: CounterDelta): UpsertParameters {
  const [low, high] = splitCounterDelta(delta.value);
  return { programId, kind: delta.kind, ownerId: delta.id, metric: delta.metric, low, high };
}

const isZero = (value: bigint | number) => value === 0 || value === 0n;

/** Adds to one figure and answers its new value, exactly, in one atomic statement. */
export async function addCounterDelta(
  db: Kysely<DB>,
  programId: number,
  delta: CounterDelta,
): Promise<bigint> {
  const [row] = await upsertCounterReturning(db, upsertParameters(programId, delta));
  return row ? joinCounterParts(row.value, row.value_hi) : 0n;
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
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['program_id', 'owner_kind', 'owner_id', 'metric'])
          .doUpdateSet(carryingUpdate('entity_counters')),
      ),
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
  const figures = mergedDeltas(deltas);
  for (let from = 0; from < figures.length; from += MAX_ROWS) {
    const chunk = figures.slice(from, from + MAX_ROWS);
    if (chunk.length === 1) {
      await upsertCounter(db, upsertParameters(programId, chunk[0]!));
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
    await manyUpserts[chunk.length]!(db, params);
  }
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

/**
 * Subtracts `amount` from one figure only if it stays at or above zero; answers whether it did.
 * One atomic statement, so concurrent withdrawals can never overdraw (balance credits). The
 * comparison is made on the two parts (`value` is normalized), so it is exact at any size.
 */
export async function subtractIfAvailable(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  metric: string,
  amount: bigint | number,
): Promise<boolean> {
  const [needLow, needHigh] = splitCounterDelta(amount);
  // Bound as bigints: better-sqlite3 binds a JS number as REAL, and `/` would then divide exactly.
  const [low, high] = splitCounterDelta(-BigInt(amount)).map(BigInt) as [bigint, bigint];
  const base = sql.lit(COUNTER_BASE);
  const result = await db
    .updateTable('entity_counters')
    .set({
      value: sql<number>`(value + ${low}) % ${base}`,
      value_hi: sql<number>`value_hi + ${high} + (value + ${low}) / ${base}`,
    })
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id)
    .where('metric', '=', metric)
    .where((eb) =>
      eb.or([
        eb('value_hi', '>', needHigh),
        eb.and([eb('value_hi', '=', needHigh), eb('value', '>=', needLow)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
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
