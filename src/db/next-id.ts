import { type RawBuilder, sql } from 'kysely';

/**
 * PostgreSQL: the next id of `table`, taken before its row is written (a statement that writes the
 * row with others needs it first). Identity columns' sequences are named `<table>_id_seq`; the
 * name as a `regclass` literal is resolved once, when the statement is prepared, where
 * `pg_get_serial_sequence` searched the catalog on every call (a sixth of a sale's read).
 */
export function nextId(
  table: 'transactions' | 'rewards' | 'customers' | 'billing_events',
): RawBuilder<number> {
  return sql<number>`nextval(${sql.lit(`${table}_id_seq`)}::regclass)`;
}
