import type { BodyOf, QueryOf, Transport } from '../transport.ts';

/** Customers: an affiliate program's signups, or a refer-a-friend program's members. */
export function customers(t: Transport) {
  const byId = (id: string) => ({ params: { path: { id } } });
  return {
    /** Not replayed when no answer comes: a second create of the same `key` is a 422. */
    create: (body: BodyOf<'/v1/customers', 'post'>) => t.data(() => t.api.POST('/v1/customers', { body })),
    list: (query: QueryOf<'/v1/customers', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/customers', { params: { query: { ...query, page } } }), query.page),
    get: (id: string) =>
      t.read(() => t.api.GET('/v1/customers/{id}', byId(id))).then((answer) => answer.data),
    update: (id: string, body: BodyOf<'/v1/customers/{id}', 'put'>) =>
      t.data(() => t.api.PUT('/v1/customers/{id}', { ...byId(id), body })),
    delete: (id: string) => t.done(() => t.api.DELETE('/v1/customers/{id}', byId(id))),
    archive: (id: string) => t.done(() => t.api.POST('/v1/customers/{id}/archive', byId(id))),
    revokeArchive: (id: string) => t.done(() => t.api.POST('/v1/customers/{id}/revoke-archive', byId(id))),
  };
}
