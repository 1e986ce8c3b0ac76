import type { VouchMigration } from './helpers.ts';
import { booleanType, withId } from './helpers.ts';

/**
 * Issue 31: sales from the billing system. One row per program and processor holds the sealed
 * webhook secret; every event a processor delivers is a row (unique per program, processor and
 * the processor's event id, which makes a redelivery a no-op); each recorded sale keeps the ids
 * a refund may name it by and how much of it the processor's refunds took.
 */
export const billingIntegrations: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('billing_integrations'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      /** The processor's signing secret, sealed with SECRET_KEY (core/secret-box.ts). */
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('secret_hint', 'text', (c) => c.notNull())
      .addColumn('active', booleanType(dialect), (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('billing_integrations_program_provider', ['program_id', 'provider'])
      .execute();

    await withId(db.schema.createTable('billing_events'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      /** processing, processed, ignored, unattributed, pending (a refund waiting for its sale), failed. */
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      /** The event as received (verified), to run it again on retry. */
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('transaction_key', 'text')
      .addColumn('customer_key', 'text')
      /** The processor's customer id: unattributed sales of a customer linked later run again. */
      .addColumn('processor_customer', 'text')
      /** What a pending refund waits for: an id its sale is known by. */
      .addColumn('awaits', 'text')
      /** An object refunded once whatever events name it (a Paddle adjustment, a Stripe dispute). */
      .addColumn('once_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('billing_events_program_event', ['program_id', 'provider', 'event_id'])
      .execute();
    await db.schema
      .createIndex('billing_events_program_created')
      .on('billing_events')
      .columns(['program_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('billing_events_program_awaits')
      .on('billing_events')
      .columns(['program_id', 'provider', 'awaits'])
      .execute();
    await db.schema
      .createIndex('billing_events_program_customer')
      .on('billing_events')
      .columns(['program_id', 'provider', 'processor_customer'])
      .execute();
    await db.schema
      .createIndex('billing_events_program_once')
      .on('billing_events')
      .columns(['program_id', 'provider', 'once_id'])
      .execute();

    await db.schema
      .createTable('billing_sales')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('transaction_key', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      /** What the processor's refunds took from the sale so far, in micro-units. */
      .addColumn('refunded', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('billing_sales_pk', ['program_id', 'provider', 'transaction_key'])
      .execute();

    await db.schema
      .createTable('billing_sale_refs')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('transaction_key', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('billing_sale_refs_pk', ['program_id', 'provider', 'ref'])
      .execute();
  },
};
