import { joinCounterParts } from '../src/db/counter-parts.ts';
import type { TestServer } from './harness.ts';

/**
 * An entity's figure read straight from its rows, summed over its slots (db/counter-slots.ts):
 * [value, number of slot rows], for tests that hold a figure against a recount of its rows.
 */
export async function entityFigure(
  server: TestServer,
  programId: number,
  kind: string,
  id: number,
  metric: string,
): Promise<readonly [value: bigint, slots: number]> {
  const rows = await server.deps.database.db
    .selectFrom('entity_counters')
    .select(['value', 'value_hi'])
    .where('program_id', '=', programId)
    .where('owner_kind', '=', kind)
    .where('owner_id', '=', id)
    .where('metric', '=', metric)
    .execute();
  return [rows.reduce((sum, row) => sum + joinCounterParts(row.value, row.value_hi), 0n), rows.length];
}
