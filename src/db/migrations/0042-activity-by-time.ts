import type { VouchMigration } from './helpers.ts';

/**
 * The activity log reads newest first by the time an entry was made. API-key writes are stored in
 * batches (ADR 0131), so a console write made while a batch waits gets the smaller id: ordered by
 * id, the log showed it before the API writes that came first.
 */
export const activityByTime: VouchMigration = {
  async up(db) {
    await db.schema.dropIndex('activity_log_program').execute();
    await db.schema
      .createIndex('activity_log_program_time')
      .on('activity_log')
      .columns(['program_id', 'created_at', 'id'])
      .execute();
  },
};
