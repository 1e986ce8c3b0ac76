import { sql } from 'kysely';
import { booleanType, type VouchMigration, withId } from './helpers.ts';

/**
 * The owner console (issue 30): its users, their sessions (database rows, so every instance
 * behind a load balancer knows them), each user's role per program, invitations to a program's
 * team, and the failed sign-ins that slow guessing down. Users are not a program's: one person
 * may run several programs.
 */
export const ownerConsole: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('console_users'), dialect)
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      /** An operator (made by the CLI or the set-up page) owns every program and may create them. */
      .addColumn('operator', booleanType(dialect), (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // One account per address, whatever its case.
    await sql`create unique index console_users_email on console_users (lower(email))`.execute(db);

    await withId(db.schema.createTable('console_sessions'), dialect)
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('console_users.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      /** A digest of the user's password hash when the session began: a new password ends it. */
      .addColumn('credential_stamp', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('console_sessions_user').on('console_sessions').column('user_id').execute();

    await db.schema
      .createTable('console_members')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('console_users.id').onDelete('cascade'))
      /** `owner`, `admin` or `viewer` (core/console-roles.ts). */
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('console_members_pk', ['program_id', 'user_id'])
      .execute();
    await db.schema.createIndex('console_members_user').on('console_members').column('user_id').execute();

    await withId(db.schema.createTable('console_invites'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      /** SHA-256 of the e-mailed link's secret. */
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('invited_by', 'bigint', (c) => c.references('console_users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema
      .createIndex('console_invites_program')
      .on('console_invites')
      .column('program_id')
      .execute();

    await db.schema
      .createTable('console_sign_in_failures')
      /** `account:{lower-case e-mail}` or `address:{client address}`. */
      .addColumn('subject', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('last_failed_at', 'text', (c) => c.notNull())
      .execute();
  },
};
