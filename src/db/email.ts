import { type RawBuilder, sql } from 'kysely';

/**
 * E-mail addresses are unique and found case-insensitively (contract §4.20): stored as given,
 * compared lower-cased on both sides, which the `(program_id, lower(email))` unique indexes of
 * migration 0011 serve. SQLite's `lower` folds ASCII letters only, PostgreSQL's every letter.
 */
export function lowerEmail(column: string): RawBuilder<string> {
  return sql<string>`lower(${sql.ref(column)})`;
}
