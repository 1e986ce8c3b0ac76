import type { BodyOf, QueryOf, Transport } from '../transport.ts';

/** The program the key belongs to. */
export function program(t: Transport) {
  return {
    /** The program, its settings and the figures of the last 30 days. */
    get: () => t.read(() => t.api.GET('/v1/program')).then((answer) => answer.data),
    update: (body: BodyOf<'/v1/program', 'put'>) => t.send(() => t.api.PUT('/v1/program', { body })),
    /** Which program the key belongs to, and its scope (`full` or `read`). */
    key: () => t.read(() => t.api.GET('/v1/test')).then((answer) => answer.data),
  };
}

/** Webhooks and their delivery log. */
export function webhooks(t: Transport) {
  const byKey = (key: string) => ({ params: { path: { key } } });
  return {
    create: (body: BodyOf<'/v1/webhooks', 'post'>) => t.data(() => t.api.POST('/v1/webhooks', { body })),
    list: (query: QueryOf<'/v1/webhooks', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/webhooks', { params: { query: { ...query, page } } }), query.page),
    get: (key: string) =>
      t.read(() => t.api.GET('/v1/webhooks/{key}', byKey(key))).then((answer) => answer.data),
    update: (key: string, body: BodyOf<'/v1/webhooks/{key}', 'put'>) =>
      t.data(() => t.api.PUT('/v1/webhooks/{key}', { ...byKey(key), body })),
    delete: (key: string) => t.done(() => t.api.DELETE('/v1/webhooks/{key}', byKey(key))),
    /** The attempts to deliver events to the webhook, newest first. */
    deliveries: (key: string, query: QueryOf<'/v1/webhooks/{key}/deliveries', 'get'> = {}) =>
      t.list(
        (page) =>
          t.api.GET('/v1/webhooks/{key}/deliveries', {
            params: { path: { key }, query: { ...query, page } },
          }),
        query.page,
      ),
  };
}
