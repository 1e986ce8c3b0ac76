import { sql } from 'kysely';
import { rebuildSqliteTable, type VouchMigration, withId } from './helpers.ts';

/**
 * Password reset for console users (issue 30): one-time links kept as a SHA-256, and e-mails that
 * belong to no program (a console user's own), so the outbox's program becomes optional.
 */
export const consoleResets: VouchMigration = {
  async up(db, dialect) {
    if (dialect === 'postgres')
      await sql`alter table email_outbox alter column program_id drop not null`.execute(db);
    else
      await rebuildSqliteTable(db, 'email_outbox', (definition) =>
        definition.replace(/("program_id" bigint) not null/i, '$1'),
      );
    await withId(db.schema.createTable('console_password_resets'), dialect)
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('console_users.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
  },
};
