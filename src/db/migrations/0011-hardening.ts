import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 9. E-mail addresses are unique per program case-insensitively (contract §4.20): stored as
 * given, compared lower-cased. The older case-sensitive constraints stay (they are implied by
 * these, and SQLite cannot drop a table constraint without rebuilding the table). Creating an
 * index fails when a program already holds two addresses differing only in case: the operator
 * merges or renames them first.
 */
export const hardening: VouchMigration = {
  async up(db) {
    await sql`create unique index partners_program_email_ci on partners (program_id, lower(email))`.execute(
      db,
    );
    await sql`create unique index customers_program_email_ci on customers (program_id, lower(email))`.execute(
      db,
    );
  },
};
