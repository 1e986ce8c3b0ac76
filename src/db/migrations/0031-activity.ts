import { type VouchMigration, withId } from './helpers.ts';

/**
 * The activity log (issue 30): every write made in the owner console, with who, what, the fields
 * changed from → to and from which address, and every successful `/v1` write of an API key.
 */
export const activity: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('activity_log'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      /** `user` (a console user, named by e-mail) or `key` (an API key, named by its public id). */
      .addColumn('actor_kind', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('subject', 'text')
      /** JSON `{field: {before, after}}` of the fields a console write changed, or null. */
      .addColumn('changes', 'text')
      .addColumn('address', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('activity_log_program')
      .on('activity_log')
      .columns(['program_id', 'id'])
      .execute();
  },
};
