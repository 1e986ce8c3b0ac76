import { type Kysely, sql } from 'kysely';
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

/**
 * Adds to the figures of several owners in the caller's transaction. One prepared upsert per
 * figure: on SQLite that is cheaper than compiling a multi-row statement of varying length.
 */
export async function addCounterDeltas(db: Kysely<DB>, programId: number, deltas: readonly CounterDelta[]) {
  for (const delta of deltas) {
    if (isZero(delta.value)) continue;
    await upsertCounter(db, upsertParameters(programId, delta));
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
