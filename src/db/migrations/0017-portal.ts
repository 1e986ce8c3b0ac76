import { type VouchMigration, withId } from './helpers.ts';

/**
 * The partner portal (issue 14): sign-in sessions and one-time tokens, both stored as a SHA-256
 * of the secret the browser or the e-mail holds, and the failed sign-ins that slow guessing down.
 * Sessions and tokens name their owner by kind and id (a partner today, a refer-a-friend customer
 * later), so one table serves both portals.
 */
export const portal: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('portal_sessions'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'bigint', (c) => c.notNull())
      /** A digest of the owner's password hash when the session began: a new password ends it. */
      .addColumn('credential_stamp', 'text', (c) => c.notNull())
      /** Whether the owner was approved when the session began: a later rejection ends it. */
      .addColumn('approved', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('portal_sessions_program_token', ['program_id', 'token_hash'])
      .execute();
    await db.schema
      .createIndex('portal_sessions_owner')
      .on('portal_sessions')
      .columns(['program_id', 'owner_kind', 'owner_id'])
      .execute();

    await withId(db.schema.createTable('portal_tokens'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull())
      /** `sign_in` (a one-time sign-in link) or `reset` (a password reset link). */
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .addUniqueConstraint('portal_tokens_program_token', ['program_id', 'token_hash'])
      .execute();

    await db.schema
      .createTable('portal_sign_in_failures')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      /** `account:<lower-cased e-mail>` or `address:<client address>`. */
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('last_failed_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('portal_sign_in_failures_pk', ['program_id', 'subject'])
      .execute();
  },
};
