import type { VouchMigration } from './helpers.ts';

/**
 * The overview reads a program's figures of the last 60 days and its running totals; the primary
 * key leads with the metric, so without this index that read walks every day a program has had.
 */
export const programCountersByDay: VouchMigration = {
  async up(db) {
    await db.schema
      .createIndex('program_counters_by_day')
      .on('program_counters')
      .columns(['program_id', 'day', 'metric', 'value'])
      .execute();
  },
};
