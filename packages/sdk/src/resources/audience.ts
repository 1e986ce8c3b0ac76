import type { BodyOf, QueryOf, Transport } from '../transport.ts';

/** A newsletter program's subscribers. */
export function subscribers(t: Transport) {
  const byId = (id: string) => ({ params: { path: { id } } });
  return {
    /** Insert-or-replay by `email`, so it is retried safely. */
    create: (body: BodyOf<'/v1/subscribers', 'post'>) =>
      t.data(() => t.api.POST('/v1/subscribers', { body }), 'safe'),
    list: (query: QueryOf<'/v1/subscribers', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/subscribers', { params: { query: { ...query, page } } }), query.page),
    get: (id: string) =>
      t.read(() => t.api.GET('/v1/subscribers/{id}', byId(id))).then((answer) => answer.data),
    update: (id: string, body: BodyOf<'/v1/subscribers/{id}', 'put'>) =>
      t.data(() => t.api.PUT('/v1/subscribers/{id}', { ...byId(id), body })),
    delete: (id: string) => t.done(() => t.api.DELETE('/v1/subscribers/{id}', byId(id))),
  };
}

/** Leads partners submit, converted into customers or rejected. */
export function leads(t: Transport) {
  return {
    create: (body: BodyOf<'/v1/leads', 'post'>) => t.data(() => t.api.POST('/v1/leads', { body })),
    list: (query: QueryOf<'/v1/leads', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/leads', { params: { query: { ...query, page } } }), query.page),
    get: (id: string | number) =>
      t
        .read(() => t.api.GET('/v1/leads/{id}', { params: { path: { id: String(id) } } }))
        .then((answer) => answer.data),
    convert: (body: BodyOf<'/v1/leads/convert', 'post'>) =>
      t.send(() => t.api.POST('/v1/leads/convert', { body })),
    reject: (body: BodyOf<'/v1/leads/reject', 'post'>) =>
      t.send(() => t.api.POST('/v1/leads/reject', { body })),
  };
}
