import type { Kysely } from 'kysely';
import { preparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

export type CounterOwner = { kind: 'partner' | 'customer' | 'link'; id: number };

/** Adds each delta to the owner's figures, creating rows as needed, in the caller's transaction. */
export async function addToEntityCounters(
  db: Kysely<DB>,
  programId: number,
  owner: CounterOwner,
  deltas: Record<string, number>,
): Promise<void> {
  const rows = Object.entries(deltas)
    .filter(([, value]) => value !== 0)
    .map(([metric, value]) => ({
      program_id: programId,
      owner_kind: owner.kind,
      owner_id: owner.id,
      metric,
      value,
    }));
  if (rows.length === 0) return;
  await db
    .insertInto('entity_counters')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['program_id', 'owner_kind', 'owner_id', 'metric']).doUpdateSet((eb) => ({
        value: eb('entity_counters.value', '+', eb.ref('excluded.value')),
      })),
    )
    .execute();
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
