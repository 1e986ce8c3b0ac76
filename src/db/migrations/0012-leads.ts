import { booleanType, type VouchMigration, withId } from './helpers.ts';

/**
 * Leads of affiliate programs: the program's lead setup (one row per program that changed it; a
 * program without one has the defaults) and the leads partners submit. Lists page in creation
 * order, unfiltered, by status or by submitting partner.
 */
export const leads: VouchMigration = {
  async up(db, dialect) {
    await db.schema
      .createTable('lead_setups')
      .addColumn('program_id', 'bigint', (c) => c.primaryKey().references('programs.id').onDelete('cascade'))
      .addColumn('leads_enabled', booleanType(dialect), (c) => c.notNull())
      .addColumn('commission_type', 'text', (c) => c.notNull())
      .addColumn('leads_commission', 'text', (c) => c.notNull())
      .addColumn('form_fields', 'text', (c) => c.notNull())
      .addColumn('next_field_id', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('leads'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('partner_id', 'bigint', (c) => c.references('partners.id').onDelete('set null'))
      .addColumn('submitter', 'text', (c) => c.notNull())
      .addColumn('answers', 'text', (c) => c.notNull())
      .addColumn('submission_form', 'text', (c) => c.notNull())
      .addColumn('converted_to', 'text')
      .addColumn('transaction_key', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('leads_created')
      .on('leads')
      .columns(['program_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('leads_status')
      .on('leads')
      .columns(['program_id', 'status', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('leads_partner')
      .on('leads')
      .columns(['program_id', 'partner_id', 'created_at', 'id'])
      .execute();
  },
};
