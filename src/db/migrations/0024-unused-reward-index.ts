import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 15: `rewards_in_review` (rewards in their hold, by the end of the hold, across programs)
 * has had no reader since every look-up of due rewards became one program's, on `rewards_due`
 * (migration 0016). Every reward written in its hold, and every move out of it, still paid for it.
 */
export const unusedRewardIndex: VouchMigration = {
  async up(db) {
    await sql`drop index if exists rewards_in_review`.execute(db);
  },
};
