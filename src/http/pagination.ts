import type { FastifyRequest } from 'fastify';
import qs from 'qs';
import { type TProperties, Type } from 'typebox';

/** The spec's `limit` ranges and defaults per list (spec, Limits). */
export const listLimits = {
  standard: { minimum: 1, maximum: 250, default: 15 },
  domains: { minimum: 1, maximum: 250, default: 10 },
  subscribers: { minimum: 10, maximum: 250, default: 10 },
  webhooks: { minimum: 10, maximum: 100, default: 10 },
  customerTransactions: { minimum: 10, maximum: 100, default: 10 },
} as const;

export type ListKind = keyof typeof listLimits;

// Deep pages cost a scan of every skipped row; past this the answer would be slow and empty.
const MAX_PAGE = 1_000_000;

/** `limit`, `page` and `sort` of a list, plus its filters. */
const listProperties = (kind: ListKind) => ({
  limit: Type.Integer({ ...listLimits[kind], description: 'Items per page' }),
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
    default: 'desc',
    description: 'Order by creation time',
  }),
});

export const ListQuery = <P extends TProperties = Record<never, never>>(kind: ListKind, filters?: P) =>
  Type.Object({ ...listProperties(kind), ...filters } as ReturnType<typeof listProperties> & P);

export interface PageRequest {
  page: number;
  limit: number;
  sort: 'asc' | 'desc';
}

/** Rows for one page: the repository fetches `limit + 1` to learn whether a next page exists. */
export const pageWindow = (page: PageRequest) => ({
  offset: (page.page - 1) * page.limit,
  fetch: page.limit + 1,
});

/** Rows for one page of a list answered as a bare array (no `next` link): exactly `limit`. */
export const exactPageWindow = (page: Pick<PageRequest, 'page' | 'limit'>) => ({
  offset: (page.page - 1) * page.limit,
  fetch: page.limit,
});

export function baseUrl(request: FastifyRequest): string {
  return request.server.deps.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * The list envelope with absolute links on our own host (contract §4.11). Links keep the
 * request's filters and `limit`, so a client that follows `next` verbatim gets the next page.
 */
export function paginated<T>(request: FastifyRequest, page: PageRequest, rowsPlusOne: readonly T[]) {
  const data = rowsPlusOne.slice(0, page.limit);
  const hasNext = rowsPlusOne.length > page.limit;
  const path = `${baseUrl(request)}${request.url.split('?')[0]}`;
  const { page: _page, ...rest } = request.query as Record<string, unknown>;
  const link = (n: number) =>
    `${path}?${qs.stringify({ ...rest, limit: page.limit, page: n }, { encodeValuesOnly: true })}`;
  const from = data.length > 0 ? (page.page - 1) * page.limit + 1 : null;
  return {
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
    status: 1 as const,
  };
}
