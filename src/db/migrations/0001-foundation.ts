import { sql } from 'kysely';
import { type VouchMigration, withId } from './helpers.ts';

export const foundation: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('programs'), dialect)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('website', 'text')
      .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('portal_settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('api_keys'), dialect)
      .addColumn('public_id', 'text', (c) => c.notNull().unique())
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('secret_digest', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('api_keys_program').on('api_keys').columns(['program_id', 'id']).execute();

    await withId(db.schema.createTable('events'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('dispatched_at', 'text')
      .execute();
    await db.schema.createIndex('events_program').on('events').columns(['program_id', 'id']).execute();
    await sql`create index events_undispatched on events (id) where dispatched_at is null`.execute(db);

    await withId(db.schema.createTable('email_outbox'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('text_body', 'text', (c) => c.notNull())
      .addColumn('html_body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('sent_at', 'text')
      .addColumn('last_error', 'text')
      .execute();
    await db.schema
      .createIndex('email_outbox_program')
      .on('email_outbox')
      .columns(['program_id', 'id'])
      .execute();
    await sql`create index email_outbox_due on email_outbox (next_attempt_at) where sent_at is null`.execute(
      db,
    );

    await db.schema
      .createTable('program_counters')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('program_counters_pk', ['program_id', 'metric', 'day'])
      .execute();
  },
};
