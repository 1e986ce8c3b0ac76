import { type Kysely, type Selectable, sql } from 'kysely';
import type { ReferralLinksTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';
import { hotQuery } from '../referral-links/referral-links.prepared.ts';

/**
 * Hot-path reads of refer-a-friend customers, compiled once: a customer record needs the links
 * and figures of the customer and of its referrer, read two owners at a time (pass the same id
 * twice for a customer without a referrer).
 */

const selectLinksOfTwo = hotQuery<Selectable<ReferralLinksTable>, [programId: number, a: number, b: number]>(
  (db) =>
    db
      .selectFrom('referral_links')
      .selectAll()
      .where('program_id', '=', 0)
      .where('customer_id', 'in', [0, 0])
      .orderBy('is_default', 'desc')
      .orderBy('id', 'asc'),
);

const selectCountersOfTwo = hotQuery<
  { owner_id: number; metric: string; value: number },
  [programId: number, a: number, b: number]
>((db) =>
  db
    .selectFrom('entity_counters')
    .select(['owner_id', 'metric', 'value'])
    .where('program_id', '=', 0)
    .where('owner_kind', '=', sql.lit('customer'))
    .where('owner_id', 'in', [0, 0]),
);

const selectProgramSettings = hotQuery<{ settings: string }, [programId: number]>((db) =>
  db.selectFrom('programs').select('settings').where('id', '=', 0),
);

export async function linksOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  return selectLinksOfTwo(db, programId, a, b);
}

/** Figures of up to two customers, by customer id then metric. */
export async function countersOfCustomers(db: Kysely<DB>, programId: number, a: number, b: number) {
  const rows = await selectCountersOfTwo(db, programId, a, b);
  const byOwner = new Map<number, Map<string, number>>([
    [a, new Map()],
    [b, new Map()],
  ]);
  for (const row of rows) byOwner.get(Number(row.owner_id))?.set(row.metric, Number(row.value));
  return byOwner;
}

export async function programSettingsText(db: Kysely<DB>, programId: number): Promise<string> {
  return (await selectProgramSettings(db, programId))[0]?.settings ?? '{}';
}

/** Adds deltas to the figures of several customers in one statement, creating rows as needed. */
export async function addToCustomerCounters(
  db: Kysely<DB>,
  programId: number,
  deltas: readonly { customerId: number; metric: string; value: number }[],
): Promise<void> {
  const merged = new Map<string, { customerId: number; metric: string; value: number }>();
  for (const delta of deltas) {
    const key = `${delta.customerId} ${delta.metric}`;
    const entry = merged.get(key);
    if (entry) entry.value += delta.value;
    else merged.set(key, { ...delta });
  }
  const rows = [...merged.values()]
    .filter((delta) => delta.value !== 0)
    .map((delta) => ({
      program_id: programId,
      owner_kind: 'customer',
      owner_id: delta.customerId,
      metric: delta.metric,
      value: delta.value,
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
