/**
 * The types of the API's answers, read from its OpenAPI document (the SDK's generated types), for
 * the test harness: `request('GET', `/v1/partners/${id}?limit=2`)` answers the body the document
 * gives `GET /v1/partners/{id}`, so a test that reads a field the API does not answer does not
 * compile. A path only known as `string`, or a route the document does not have, answers `unknown`.
 */
import type { components, paths } from '../packages/sdk/src/generated/openapi.ts';
import type { ProgramType } from '../src/core/program-types.ts';

type Schemas = components['schemas'];

/** A schema of the document by name: `Schema<'Partner'>`. */
export type Schema<N extends keyof Schemas> = Schemas[N];

/** A JSON object whose fields a test reads without a schema (an event's payload). */
export type JsonObject = { [field: string]: unknown };

/** The error body every JSON error of the API has. */
export type ErrorBody = Schemas['ErrorBody'];

declare const programTypeBrand: unique symbol;

/** An API key of a program of type `K`: a string that remembers its program's type. */
export type ProgramKey<K extends ProgramType = ProgramType> = string & { readonly [programTypeBrand]?: K };

type Template = keyof paths;

type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P;

type Segments<P extends string> = P extends `${infer Head}/${infer Rest}` ? [Head, ...Segments<Rest>] : [P];

type TemplateSegments = { [T in Template]: Segments<T> };

/** Whether the concrete segments fill the template's (a `{name}` segment takes any one segment). */
type Fills<Concrete extends string[], Pattern extends string[]> = Concrete extends [
  infer C extends string,
  ...infer CRest extends string[],
]
  ? Pattern extends [infer T extends string, ...infer TRest extends string[]]
    ? T extends `{${string}}`
      ? Fills<CRest, TRest>
      : [C] extends [T]
        ? Fills<CRest, TRest>
        : false
    : false
  : Pattern extends []
    ? true
    : false;

type MatchingTemplates<P extends string> = {
  [T in Template]: Fills<Segments<P>, TemplateSegments[T]> extends true ? T : never;
}[Template];

/** The document's template for a concrete path: itself when it is one, else the templates it fills. */
export type TemplateOf<P extends string> =
  WithoutQuery<P> extends Template
    ? WithoutQuery<P>
    : string extends WithoutQuery<P>
      ? never
      : MatchingTemplates<WithoutQuery<P>>;

type Operation<M extends string, T> = T extends Template
  ? Lowercase<M> extends keyof paths[T]
    ? paths[T][Lowercase<M>]
    : never
  : never;

type SuccessStatus = 200 | 201 | 202;

type JsonContent<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;

type SuccessBody<O> = O extends { responses: infer Responses }
  ? JsonContent<Responses[SuccessStatus & keyof Responses]>
  : never;

/** The schemas of one program type's variants (`AffiliateCustomer`, `CreatedReferralTransaction`, …). */
type VariantNames<K extends ProgramType> = Exclude<
  Extract<keyof Schemas, `${string}${Capitalize<K>}${string}`>,
  `${string}Body`
>;

type Variant<K extends ProgramType> = Schemas[VariantNames<K>];

/** A body that differs by program type, narrowed to the variants of the type `K`. */
type ForProgram<Body, K extends ProgramType> = [
  Extract<Body, Variant<K> | { data: Variant<K> | Variant<K>[] }>,
] extends [never]
  ? Body
  : Extract<Body, Variant<K> | { data: Variant<K> | Variant<K>[] }>;

/**
 * A body whose `data` is one item, or a list of them for a batch (`{ transactions: [...] }`): the
 * list when the request sent one, else the item.
 */
type ForRequest<Body, Sent> = Body extends { data: infer Data }
  ? [Extract<Data, unknown[]>] extends [never]
    ? Body
    : [Exclude<Data, unknown[]>] extends [never]
      ? Body
      : {
          [F in keyof Body]: F extends 'data'
            ? Sent extends { transactions: readonly unknown[] }
              ? Extract<Data, unknown[]>
              : Exclude<Data, unknown[]>
            : Body[F];
        }
  : Body;

/**
 * The JSON body of a successful answer to `method path` from a program of type `K`, given the
 * request body `Sent`: `unknown` when the document has no such route or no JSON answer for it.
 */
export type AnswerOf<
  M extends string,
  P extends string,
  K extends ProgramType = ProgramType,
  Sent = unknown,
> = [SuccessBody<Operation<M, TemplateOf<P>>>] extends [never]
  ? unknown
  : ForRequest<ForProgram<SuccessBody<Operation<M, TemplateOf<P>>>, K>, Sent>;

/** The `data` of an answer body that has one. */
export type DataOf<Body> = Body extends { data: infer Data } ? Data : never;

/** The `data` of a reply's body, typed from the route (for helpers generic in the path). */
export function dataOf<Body>(reply: { body: Body }): DataOf<Body> {
  return (reply.body as { data: DataOf<Body> }).data;
}

/** A page of a list, as every list of the API answers it (for lists a test reaches by `links.next`). */
export type Page<Item = unknown> = {
  data: Item[];
  links: Schemas['PageLinks'];
  meta: Schemas['PageMeta'];
  status: 1;
};
