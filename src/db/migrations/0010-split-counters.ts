import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

const BASE = sql.lit(1_000_000_000_000);

/**
 * Counters hold sums up to 10^15 units in micro-units (10^21), beyond int64: each figure becomes
 * `value_hi × 10^12 + value` (db/counter-parts.ts). Existing rows are normalized so `value` is in
 * [0, 10^12); the floor of a negative value is taken by hand, as `/` and `%` truncate on both
 * databases.
 */
export const splitCounters: VouchMigration = {
  async up(db) {
    for (const table of ['entity_counters', 'program_counters']) {
      await db.schema
        .alterTable(table)
        .addColumn('value_hi', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update ${sql.table(table)}
        set value_hi = value_hi + (value - ((value % ${BASE}) + ${BASE}) % ${BASE}) / ${BASE},
            value = ((value % ${BASE}) + ${BASE}) % ${BASE}
        where value < 0 or value >= ${BASE}`.execute(db);
    }
    // The overview's covering index must carry the new column, or its window sums read the table.
    await db.schema.dropIndex('program_counters_by_day').execute();
    await db.schema
      .createIndex('program_counters_by_day')
      .on('program_counters')
      .columns(['program_id', 'day', 'metric', 'value', 'value_hi'])
      .execute();
  },
};
