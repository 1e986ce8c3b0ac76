import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Issue 27: clicks keep what the fraud rules read. Each counted-or-not click the tracking script
 * or `/r/{key}` reports gets a public id (kept by the visitor's browser in the `vouch_click`
 * cookie), its link and owner, the landing URL it came with and its time. The owner's backend
 * forwards the id as `context.click_id`; one primary-key lookup answers it. Old clicks are pruned.
 * Subscribers get the pending window of newsletter referrals.
 */
export const clicks: VouchMigration = {
  async up(db, dialect) {
    const idType = dialect === 'postgres' ? 'bigint' : 'integer';
    await withId(db.schema.createTable('clicks'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('link_id', idType, (c) => c.notNull())
      /** partner or customer (a referrer). */
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', idType, (c) => c.notNull())
      /** The page the visitor landed on (the script's `url`, or `/r/{key}` with its query string). */
      .addColumn('landing_url', 'text')
      .addColumn('clicked_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('clicks_public_id', ['program_id', 'public_id'])
      .execute();
    await db.schema.createIndex('clicks_by_time').on('clicks').column('clicked_at').execute();

    // Newsletter `referral_pending_days`: a referred subscriber counts once its window ends, unless
    // it unsubscribed inside it (lapsed: never counts).
    await db.schema.alterTable('subscribers').addColumn('referral_pending_until', 'text').execute();
    await db.schema.alterTable('subscribers').addColumn('referral_lapsed_at', 'text').execute();
    // Few subscribers are ever pending: a partial index keeps the others from paying for it.
    await db.schema
      .createIndex('subscribers_referral_pending')
      .on('subscribers')
      .columns(['program_id', 'referral_pending_until'])
      .where(sql.ref('referral_pending_until'), 'is not', null)
      .execute();
  },
};
