// Compile-time checks of the reply types (test/api-types.ts): `npm run typecheck` fails when one
// breaks. Nothing here runs.
import type { AnswerOf, TemplateOf } from './api-types.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const holds = <Claim extends true>(): Claim | undefined => undefined;

// A concrete path finds its template; the query string is ignored; an exact template wins.
holds<Equal<TemplateOf<`/v1/partners/${string}?limit=2`>, '/v1/partners/{id}'>>();
holds<Equal<TemplateOf<'/v1/leads/details'>, '/v1/leads/details'>>();
holds<Equal<TemplateOf<`/v1/leads/${string}`>, '/v1/leads/{id}'>>();
holds<
  Equal<
    TemplateOf<`/v1/webhooks/${string}/deliveries/${number}/retry`>,
    '/v1/webhooks/{key}/deliveries/{id}/retry'
  >
>();
holds<Equal<TemplateOf<'/v1/partners:search'>, '/v1/partners:search'>>();
// A path only known as a string, or a route outside the document, answers unknown.
holds<Equal<TemplateOf<string>, never>>();
holds<Equal<AnswerOf<'GET', string>, unknown>>();
holds<Equal<AnswerOf<'GET', `/r/${string}`>, unknown>>();
holds<Equal<AnswerOf<'GET', '/v1/nothing-here'>, unknown>>();

declare const sale: AnswerOf<'GET', '/v1/transactions/{key}', 'affiliate'>;
declare const referred: AnswerOf<'GET', `/v1/customers/${string}`, 'referral'>;
declare const batch: AnswerOf<'POST', '/v1/transactions', 'affiliate', { transactions: unknown[] }>;
declare const single: AnswerOf<'POST', '/v1/transactions', 'affiliate', { key: string }>;
export const reads = [
  sale.data.partner,
  referred.data.referring_customer,
  batch.data.length,
  single.data.rewards,
  // @ts-expect-error Transactions have no id on the wire: a test reading one would be vacuous.
  sale.data.id,
  // @ts-expect-error A refer-a-friend customer has no partner.
  referred.data.partner,
  // @ts-expect-error A batch answers a list.
  batch.data.rewards,
];
