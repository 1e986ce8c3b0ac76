import type { BodyOf, QueryOf, Transport } from '../transport.ts';

type CreateSale = BodyOf<'/v1/transactions', 'post'>;

/**
 * A sale with a `key` is insert-or-replay on the server: the same request again answers the
 * stored sale without a second reward, so it is the one sale create that is retried.
 */
const replayable = (body: CreateSale) =>
  'key' in body &&
  typeof body.key === 'string' &&
  body.key !== '' &&
  !('transactions' in body && body.transactions)
    ? 'safe'
    : 'once';

/** Sales (transactions), their refunds and archive. */
export function transactions(t: Transport) {
  const byKey = (key: string) => ({ params: { path: { key } } });
  return {
    /** Records a sale (or several with `transactions: […]`); retried safely when it has a `key`. */
    create: (body: CreateSale) => t.data(() => t.api.POST('/v1/transactions', { body }), replayable(body)),
    list: (query: QueryOf<'/v1/transactions', 'get'> = {}) =>
      t.list((page) => t.api.GET('/v1/transactions', { params: { query: { ...query, page } } }), query.page),
    get: (key: string) =>
      t.read(() => t.api.GET('/v1/transactions/{key}', byKey(key))).then((answer) => answer.data),
    /** Refunds `amount`, or everything not refunded yet: unpaid rewards shrink, paid ones get clawbacks. */
    refund: (key: string, body: BodyOf<'/v1/transactions/{key}/refund', 'post'> = {}) =>
      t.data(() => t.api.POST('/v1/transactions/{key}/refund', { ...byKey(key), body })),
    delete: (key: string) => t.done(() => t.api.DELETE('/v1/transactions/{key}', byKey(key))),
    archive: (key: string) => t.done(() => t.api.POST('/v1/transactions/{key}/archive', byKey(key))),
    revokeArchive: (key: string) =>
      t.done(() => t.api.POST('/v1/transactions/{key}/revoke-archive', byKey(key))),
  };
}
