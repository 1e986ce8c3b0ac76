import { sql } from 'kysely';
import { rebuildSqliteTable, type VouchMigration } from './helpers.ts';

/**
 * Issue 31, the speed of processor sales (ADR 0104): a logged event keeps its payload only while it
 * may run again (a pending refund, a failed or unattributed event), so the payload becomes optional;
 * the look-ups by awaited sale, processor customer and refunded-once object index only the rows they
 * can find; on SQLite the sale and reference tables are keyed by their primary key alone.
 */
export const billingEventStorage: VouchMigration = {
  async up(db, dialect) {
    if (dialect === 'postgres') {
      await sql`alter table billing_events alter column payload drop not null`.execute(db);
    } else {
      await rebuildSqliteTable(db, 'billing_events', (definition) =>
        definition.replace(/("payload" text) not null/i, '$1'),
      );
      for (const table of ['billing_sales', 'billing_sale_refs'])
        await rebuildSqliteTable(db, table, (definition) => `${definition} without rowid`);
    }
    for (const name of [
      'billing_events_program_awaits',
      'billing_events_program_customer',
      'billing_events_program_once',
    ])
      await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex('billing_events_program_awaits')
      .on('billing_events')
      .columns(['program_id', 'provider', 'awaits'])
      .where(sql.ref('awaits'), 'is not', null)
      .execute();
    // Read with the status as a literal (integrations.repository.ts): a parameter would not let
    // SQLite use an index that names a value.
    await db.schema
      .createIndex('billing_events_program_unattributed')
      .on('billing_events')
      .columns(['program_id', 'provider', 'processor_customer'])
      .where(sql.ref('status'), '=', sql.lit('unattributed'))
      .execute();
    await db.schema
      .createIndex('billing_events_program_once')
      .on('billing_events')
      .columns(['program_id', 'provider', 'once_id'])
      .where(sql.ref('once_id'), 'is not', null)
      .execute();
  },
};
