import type { Kysely } from 'kysely';
import { preparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

export type CounterOwner = { kind: 'partner' | 'customer' | 'link'; id: number };

export interface CounterDelta {
  kind: CounterOwner['kind'];
  id: number;
  metric: string;
  value: number;
}

/** Adds `value` to one figure, creating it at `value`; built with placeholders for preparedQuery. */
const upsertCounterQuery = (db: Kysely<DB>) =>
  db
    .insertInto('entity_counters')
    .values({ program_id: 0, owner_kind: '', owner_id: 0, metric: '', value: 0 })
    .onConflict((oc) =>
      oc.columns(['program_id', 'owner_kind', 'owner_id', 'metric']).doUpdateSet((eb) => ({
        value: eb('entity_counters.value', '+', eb.ref('excluded.value')),
      })),
    );

const upsertCounter = preparedQuery<
  never,
  [programId: number, kind: string, ownerId: number, metric: string, value: number]
>(upsertCounterQuery);

const upsertCounterReturning = preparedQuery<
  { value: number },
  [programId: number, kind: string, ownerId: number, metric: string, value: number]
>((db) => upsertCounterQuery(db).returning('value'));

/** Adds to one figure and answers its new value, in one atomic statement. */
export async function addCounterDelta(
  db: Kysely<DB>,
  programId: number,
  delta: CounterDelta,
): Promise<number> {
  const [row] = await upsertCounterReturning(db, programId, delta.kind, delta.id, delta.metric, delta.value);
  return Number(row?.value ?? 0);
}

/**
 * Adds to the figures of several owners in the caller's transaction. One prepared upsert per
 * figure: on SQLite that is cheaper than compiling a multi-row statement of varying length.
 */
export async function addCounterDeltas(db: Kysely<DB>, programId: number, deltas: readonly CounterDelta[]) {
  for (const delta of deltas) {
    if (delta.value === 0) continue;
    await upsertCounter(db, programId, delta.kind, delta.id, delta.metric, delta.value);
  }
}

/** Adds each delta to the owner's figures, creating rows as needed, in the caller's transaction. */
export async function addToEntityCounters(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  deltas: Record<string, number>,
): Promise<void> {
  await addCounterDeltas(
    db,
    programId,
    Object.entries(deltas).map(([metric, value]) => ({ kind: owner.kind, id: owner.id, metric, value })),
  );
}

/**
 * Subtracts `amount` from one figure only if it stays at or above zero; answers whether it did.
 * One atomic statement, so concurrent withdrawals can never overdraw (balance credits).
 */
export async function subtractIfAvailable(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  metric: string,
  amount: number,
): Promise<boolean> {
  const result = await db
    .updateTable('entity_counters')
    .set((eb) => ({ value: eb('value', '-', amount) }))
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id)
    .where('metric', '=', metric)
    .where('value', '>=', amount)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

const selectEntityCounters = preparedQuery<
  { metric: string; value: number },
  [programId: number, kind: CounterOwner['kind'], ownerId: number]
>((db) =>
  db
    .selectFrom('entity_counters')
    .select(['metric', 'value'])
    .where('program_id', '=', 0)
    .where('owner_kind', '=', 'partner')
    .where('owner_id', '=', 0),
);

/** Every figure of one owner. */
export async function readEntityCounters(db: Kysely<DB>, programId: number, owner: CounterOwner) {
  const rows = await selectEntityCounters(db, programId, owner.kind, owner.id);
  return new Map(rows.map((row) => [row.metric, Number(row.value)]));
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
