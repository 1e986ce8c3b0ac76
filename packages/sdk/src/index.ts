export { type ErrorBody, VouchError } from './errors.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export { type ItemOf, type ListPage, Paginated } from './pages.ts';
export type { RetryOptions } from './retry.ts';
export type { Api, BodyOf, QueryOf } from './transport.ts';
export { Vouch, type VouchOptions } from './vouch.ts';
