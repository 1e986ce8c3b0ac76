import type { SelectQueryBuilder } from 'kysely';

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
