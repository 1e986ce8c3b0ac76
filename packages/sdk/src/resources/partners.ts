import type { BodyOf, QueryOf, Transport } from '../transport.ts';

/** Partners of an affiliate program, and their referral links. */
export function partners(t: Transport) {
  const byId = (id: string) => ({ params: { path: { id } } });
  return {
    create: (body: BodyOf<'/v1/partners', 'post'>) => t.data(() => t.api.POST('/v1/partners', { body })),
    /** Newest first; archived partners only with `status: 'archived'`. */
    list: (query: QueryOf<'/v1/partners', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/partners', { params: { query: { ...query, page } } }), query.page),
    search: (query: QueryOf<'/v1/partners:search', 'get'>) =>
      t.list(
        (page) => t.api.GET('/v1/partners:search', { params: { query: { ...query, page } } }),
        query.page,
      ),
    /** By id or by any of the partner's link keys; with payout details. */
    get: (id: string) => t.read(() => t.api.GET('/v1/partners/{id}', byId(id))).then((answer) => answer.data),
    update: (id: string, body: BodyOf<'/v1/partners/{id}', 'put'>) =>
      t.data(() => t.api.PUT('/v1/partners/{id}', { ...byId(id), body })),
    delete: (id: string) => t.done(() => t.api.DELETE('/v1/partners/{id}', byId(id))),
    approve: (id: string) => t.done(() => t.api.POST('/v1/partners/{id}/approve', byId(id))),
    reject: (id: string) => t.done(() => t.api.POST('/v1/partners/{id}/reject', byId(id))),
    archive: (id: string) => t.done(() => t.api.POST('/v1/partners/{id}/archive', byId(id))),
    revokeArchive: (id: string) => t.done(() => t.api.POST('/v1/partners/{id}/revoke-archive', byId(id))),
    links: (id: string, query: QueryOf<'/v1/partners/{id}/referral_links', 'get'> = {}) =>
      t
        .read(() => t.api.GET('/v1/partners/{id}/referral_links', { params: { path: { id }, query } }))
        .then((answer) => answer.data),
  };
}
