import type { VouchMigration } from './helpers.ts';

/**
 * Coupon and promotion-code creates are insert-or-replay on their business key (`uuid_code`,
 * `code`): each row keeps a digest of the request that created it, so the same request again is
 * answered with the stored record and another request under the key is refused. NULL on rows
 * created before, and on codes made inside a coupon's create (the coupon's digest covers them).
 */
export const replayableCodes: VouchMigration = {
  async up(db) {
    await db.schema.alterTable('coupons').addColumn('request_digest', 'text').execute();
    await db.schema.alterTable('promotion_codes').addColumn('request_digest', 'text').execute();
  },
};
