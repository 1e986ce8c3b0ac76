import type { VouchMigration } from './helpers.ts';

/**
 * Issue 30: applicants are a page of the owner console (`GET /v1/partners?approved=false`). An
 * index led by the approval finds a program's few applicants among its many partners in creation
 * order, where the status index walked every partner (measured on the 100,000-partner seed: the
 * Pending page from 20 to 3,292 req/s). Not partial: the list passes status and approval as
 * parameters, which SQLite cannot match against an index's condition.
 */
export const pendingPartners: VouchMigration = {
  async up(db) {
    await db.schema
      .createIndex('partners_program_approval')
      .on('partners')
      .columns(['program_id', 'approved', 'status', 'created_at', 'id'])
      .execute();
  },
};
