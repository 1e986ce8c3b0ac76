/** Which page of a list a caller wants: routes read it from the query, services pass it on. */
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
