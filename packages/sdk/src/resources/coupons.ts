import type { BodyOf, QueryOf, Transport } from '../transport.ts';

/** Coupons; insert-or-replay by `uuid_code` when one is given. */
export function coupons(t: Transport) {
  const byCode = (uuid_code: string) => ({ params: { path: { uuid_code } } });
  return {
    create: (body: BodyOf<'/v1/coupons', 'post'>) =>
      t.data(() => t.api.POST('/v1/coupons', { body }), body.uuid_code ? 'safe' : 'once'),
    list: (query: QueryOf<'/v1/coupons', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/coupons', { params: { query: { ...query, page } } }), query.page),
    get: (uuidCode: string) =>
      t.read(() => t.api.GET('/v1/coupons/{uuid_code}', byCode(uuidCode))).then((answer) => answer.data),
    update: (uuidCode: string, body: BodyOf<'/v1/coupons/{uuid_code}', 'put'>) =>
      t.data(() => t.api.PUT('/v1/coupons/{uuid_code}', { ...byCode(uuidCode), body })),
    delete: (uuidCode: string) => t.send(() => t.api.DELETE('/v1/coupons/{uuid_code}', byCode(uuidCode))),
  };
}

/** Promotion codes; insert-or-replay by `code`. */
export function promotionCodes(t: Transport) {
  const byCode = (code: string) => ({ params: { path: { code } } });
  return {
    create: (body: BodyOf<'/v1/promotion-codes', 'post'>) =>
      t.data(() => t.api.POST('/v1/promotion-codes', { body }), body.code ? 'safe' : 'once'),
    list: (query: QueryOf<'/v1/promotion-codes', 'get'> = {}) =>
      t.list(
        (page) => t.api.GET('/v1/promotion-codes', { params: { query: { ...query, page } } }),
        query.page,
      ),
    get: (code: string) =>
      t.read(() => t.api.GET('/v1/promotion-codes/{code}', byCode(code))).then((answer) => answer.data),
    update: (code: string, body: BodyOf<'/v1/promotion-codes/{code}', 'put'>) =>
      t.data(() => t.api.PUT('/v1/promotion-codes/{code}', { ...byCode(code), body })),
    delete: (code: string) => t.send(() => t.api.DELETE('/v1/promotion-codes/{code}', byCode(code))),
  };
}
