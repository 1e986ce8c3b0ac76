import { type SelectQueryBuilder, sql } from 'kysely';

/**
 * One page of a list in creation order (contract §4.19): `(created_at, id)` in the asked
 * direction, so rows created in one microsecond still page stably and one order is the other
 * reversed. Every list that sorts by creation pages through here, over an index ending in
 * `(created_at, id)`. Use with Kysely's `$call`.
 */
export function pageInCreationOrder(sort: 'asc' | 'desc', window?: { offset: number; fetch: number }) {
  // biome-ignore lint/suspicious/noExplicitAny: any select over a table with created_at and id.
  return <Query extends SelectQueryBuilder<any, any, any>>(query: Query): Query => {
    const ordered = query.orderBy('created_at', sort).orderBy('id', sort);
    return (window ? ordered.limit(window.fetch).offset(window.offset) : ordered) as Query;
  };
}

/**
 * Rows after `cursor` in creation order, for walks that continue where the last page ended. A row
 * value, which both databases read as a range of a `(program_id, created_at, id)` index; the same
 * test spelt `created_at > ? or (created_at = ? and id > ?)` made SQLite walk the program's rows
 * from its first on every call (130 ms for 2M rows, the event loop held). `table` qualifies the
 * columns when the query joins.
 */
export function createdAfter(cursor: { createdAt: string; id: number }, table?: string) {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  return sql<boolean>`(${column('created_at')}, ${column('id')}) > (${cursor.createdAt}, ${cursor.id})`;
}
