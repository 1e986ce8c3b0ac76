import { sql } from 'kysely';
import { booleanType, type VouchMigration, withId } from './helpers.ts';

/**
 * Webhooks, their deliveries (one per event and webhook, the unit that is retried) and the log of
 * every attempt. Indexes lead with `program_id`, except the worker's due-work index, which is
 * global by nature.
 */
export const webhooks: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('webhooks'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('is_active', booleanType(dialect), (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('disabled_reason', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('webhooks_program_key', ['program_id', 'key'])
      .execute();
    await db.schema
      .createIndex('webhooks_program_created')
      .on('webhooks')
      .columns(['program_id', 'id'])
      .execute();

    await withId(db.schema.createTable('webhook_deliveries'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('webhook_id', 'bigint', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'bigint')
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('is_test', booleanType(dialect), (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('webhook_deliveries_program_public', ['program_id', 'public_id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_webhook')
      .on('webhook_deliveries')
      .columns(['program_id', 'webhook_id', 'id'])
      .execute();
    await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at)
      where status in ('pending', 'sending')`.execute(db);

    await withId(db.schema.createTable('webhook_attempts'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('webhook_id', 'bigint', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('delivery_id', 'bigint', (c) =>
        c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
      )
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('response_code', 'integer')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('next_attempt_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_attempts_webhook')
      .on('webhook_attempts')
      .columns(['program_id', 'webhook_id', 'id'])
      .execute();
    await db.schema
      .createIndex('webhook_attempts_delivery')
      .on('webhook_attempts')
      .columns(['delivery_id'])
      .execute();
  },
};
