import type { BodyOf, QueryOf, Transport } from '../transport.ts';

/** Commissions partners earned on sales. */
export function commissions(t: Transport) {
  return {
    list: (query: QueryOf<'/v1/commissions', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/commissions', { params: { query: { ...query, page } } }), query.page),
    get: (id: string | number) =>
      t
        .read(() => t.api.GET('/v1/commissions/{id}', { params: { path: { id: String(id) } } }))
        .then((answer) => answer.data),
    /** A manual commission (a bonus, a correction). */
    create: (body: BodyOf<'/v1/commissions', 'post'>) =>
      t.data(() => t.api.POST('/v1/commissions', { body })),
    approve: (body: BodyOf<'/v1/commissions/approve', 'post'>) =>
      t.data(() => t.api.POST('/v1/commissions/approve', { body })),
    deny: (body: BodyOf<'/v1/commissions/deny', 'post'>) =>
      t.data(() => t.api.POST('/v1/commissions/deny', { body })),
  };
}

/** Payouts: approved commissions gathered per partner and currency, then paid. */
export function payouts(t: Transport) {
  const byId = (id: string | number) => ({ params: { path: { id: String(id) } } });
  return {
    create: (body: BodyOf<'/v1/payouts', 'post'> = {}) => t.data(() => t.api.POST('/v1/payouts', { body })),
    list: (query: QueryOf<'/v1/payouts', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/payouts', { params: { query: { ...query, page } } }), query.page),
    get: (id: string | number) =>
      t.read(() => t.api.GET('/v1/payouts/{id}', byId(id))).then((answer) => answer.data),
    markPaid: (id: string | number) => t.data(() => t.api.POST('/v1/payouts/{id}/mark-paid', byId(id))),
    cancel: (id: string | number) => t.data(() => t.api.POST('/v1/payouts/{id}/cancel', byId(id))),
  };
}
