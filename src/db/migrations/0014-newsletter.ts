import { sql } from 'kysely';
import { booleanType, type VouchMigration, withId } from './helpers.ts';

/**
 * Newsletter programs: subscribers, milestone rewards and which subscriber unlocked which reward.
 * A subscriber's `referrals_count` is a column updated in the transaction of every change that
 * moves it; e-mails are unique case-insensitively through `email_lower`.
 */
export const newsletter: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('subscribers'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('email_lower', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('tos', booleanType(dialect))
      .addColumn('marketing_consent', booleanType(dialect))
      .addColumn('approved', booleanType(dialect), (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('is_referred', booleanType(dialect), (c) => c.notNull())
      .addColumn('referrer_id', 'bigint', (c) => c.references('subscribers.id').onDelete('set null'))
      .addColumn('referrals_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('request_digest', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('subscribers_program_public_id', ['program_id', 'public_id'])
      .addUniqueConstraint('subscribers_program_email_lower', ['program_id', 'email_lower'])
      .addUniqueConstraint('subscribers_program_code', ['program_id', 'code'])
      .execute();
    const index = (name: string, columns: string[]) =>
      db.schema.createIndex(name).on('subscribers').columns(columns).execute();
    await index('subscribers_created', ['program_id', 'created_at', 'id']);
    await index('subscribers_referred', ['program_id', 'is_referred', 'created_at', 'id']);
    await index('subscribers_referrer', ['program_id', 'referrer_id']);
    // The leaderboard walks it from the top (most referrals, then who signed up first); unlocking a
    // lowered milestone reads the range above a threshold.
    await sql`create index subscribers_referrals on subscribers (program_id, referrals_count desc, id)`.execute(
      db,
    );

    await withId(db.schema.createTable('newsletter_rewards'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('fulfillment_type', 'text', (c) => c.notNull())
      .addColumn('fulfillment_value', 'text', (c) => c.notNull())
      .addColumn('subscriber_count', 'integer', (c) => c.notNull())
      .addColumn('times_triggered', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('newsletter_rewards_program')
      .on('newsletter_rewards')
      .columns(['program_id', 'subscriber_count', 'id'])
      .execute();

    await db.schema
      .createTable('subscriber_rewards')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('subscriber_id', 'bigint', (c) =>
        c.notNull().references('subscribers.id').onDelete('cascade'),
      )
      .addColumn('reward_id', 'bigint', (c) =>
        c.notNull().references('newsletter_rewards.id').onDelete('cascade'),
      )
      .addColumn('created_at', 'text', (c) => c.notNull())
      // The key that makes an unlock happen exactly once, however many referrals race.
      .addPrimaryKeyConstraint('subscriber_rewards_pk', ['program_id', 'subscriber_id', 'reward_id'])
      .execute();
    await sql`create index subscriber_rewards_reward on subscriber_rewards (program_id, reward_id)`.execute(
      db,
    );
  },
};
