import type { VouchMigration } from './helpers.ts';

/**
 * Refer-a-friend reads: a customer's non-currency rewards (its balance's `non_currency` list)
 * without walking its currency rewards, which a busy referrer has by the thousand.
 */
export const referral: VouchMigration = {
  async up(db) {
    await db.schema
      .createIndex('rewards_customer_units')
      .on('rewards')
      .columns(['program_id', 'customer_id', 'is_currency', 'id'])
      .execute();
  },
};
