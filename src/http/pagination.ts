import type { FastifyRequest } from 'fastify';
import qs from 'qs';
import type { PageRequest } from '../core/pages.ts';

// Page math is pure and lives in core/ (services use it); the list query schema lives in
// list-query.ts (schemas files use it). Both are re-exported for the routes that import them here.
export { exactPageWindow, type PageRequest, pageWindow } from '../core/pages.ts';
export { type ListKind, ListQuery, listLimits } from './list-query.ts';

export function baseUrl(request: FastifyRequest): string {
  return request.server.deps.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * The list envelope with absolute links on our own host (contract §4.11). Links keep the
 * request's filters and `limit`, so a client that follows `next` verbatim gets the next page.
 */
/** One page of a list answer. */
export interface Page<T> {
  data: T[];
  links: { first: string; last: null; prev: string | null; next: string | null };
  meta: { current_page: number; from: number | null; path: string; per_page: number; to: number | null };
  status: 1;
}

/**
 * The page of each row type a union of arrays may hold: rows of one program type's shape answer
 * that type's page (`A[] | B[]` gives `Page<A> | Page<B>`, never a page mixing both).
 */
export type PageOf<Rows> = Rows extends readonly (infer T)[] ? Page<T> : never;

export function paginated<Rows extends readonly unknown[]>(
  request: FastifyRequest,
  page: PageRequest,
  rowsPlusOne: Rows,
): PageOf<Rows> {
  const data = rowsPlusOne.slice(0, page.limit);
  const hasNext = rowsPlusOne.length > page.limit;
  const path = `${baseUrl(request)}${request.url.split('?')[0]}`;
  const { page: _page, ...rest } = request.query as Record<string, unknown>;
  const link = (n: number) =>
    `${path}?${qs.stringify({ ...rest, limit: page.limit, page: n }, { encodeValuesOnly: true })}`;
  const from = data.length > 0 ? (page.page - 1) * page.limit + 1 : null;
  const answer: Page<Rows[number]> = {
    data,
    links: {
      first: link(1),
      last: null,
      prev: page.page > 1 ? link(page.page - 1) : null,
      next: hasNext ? link(page.page + 1) : null,
    },
    meta: {
      current_page: page.page,
      from,
      path,
      per_page: page.limit,
      to: from === null ? null : from + data.length - 1,
    },
    status: 1,
  };
  // Rows is one array type per call, so the page is that type's (the conditional type cannot see it).
  return answer as PageOf<Rows>;
}
