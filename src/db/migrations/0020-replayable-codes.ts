import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 10's remainder.
 *
 * Coupon and promotion-code creates are insert-or-replay on their business key (`uuid_code`,
 * `code`): each row keeps a digest of the request that created it, so the same request again is
 * answered with the stored record and another request under the key is refused. NULL on rows
 * created before, and on codes made inside a coupon's create (the coupon's digest covers them).
 *
 * A coupon's `times_redeemed` is the sum of its codes' counts, carried by a trigger: a redemption
 * then writes one conditional update (the code's, whose condition also checks the coupon) instead
 * of two, on every redemption and every sale with a code.
 */
export const replayableCodes: VouchMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('coupons').addColumn('request_digest', 'text').execute();
    await db.schema.alterTable('promotion_codes').addColumn('request_digest', 'text').execute();

    if (dialect === 'postgres') {
      await sql`
        create function vouch_count_coupon_redemptions() returns trigger language plpgsql as $$
        begin
          update coupons set times_redeemed = times_redeemed + (new.times_redeemed - old.times_redeemed)
          where program_id = new.program_id and id = new.coupon_id;
          return null;
        end
        $$`.execute(db);
      await sql`
        create trigger promotion_codes_count_coupon after update of times_redeemed on promotion_codes
        for each row execute function vouch_count_coupon_redemptions()`.execute(db);
    } else {
      await sql`
        create trigger promotion_codes_count_coupon after update of times_redeemed on promotion_codes
        begin
          update coupons set times_redeemed = times_redeemed + (new.times_redeemed - old.times_redeemed)
          where program_id = new.program_id and id = new.coupon_id;
        end`.execute(db);
    }
  },
};
