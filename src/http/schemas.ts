import { type Static, type TSchema, Type } from 'typebox';
import type { AmountSign } from '../core/money.ts';
import type { ProgramType } from '../core/program-types.ts';

/** Shared wire pieces: envelopes, error bodies and field types every module reuses. */

export const Timestamp = Type.String({
  description: 'ISO 8601 in UTC with microseconds',
  examples: ['2025-04-30T16:44:13.000000Z'],
});
export const DateOnly = Type.String({ description: 'YYYY-MM-DD', examples: ['2025-04-30'] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const NullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * An amount of money: a JSON number or a numeric string (the spec allows both), validated by the
 * money rule of core/money.ts through the `x-amount` keyword (http/validation.ts): at most six
 * decimal places, below 10^12 in magnitude, and of the sign the field accepts (a sale's amount
 * is never negative). Services still convert it with `amountOrThrow`, the one rule.
 */
export const Amount = (options: { sign?: AmountSign; description?: string } = {}) =>
  Type.Union([Type.Number(), Type.String()], {
    'x-amount': { sign: options.sign ?? 'non-negative' },
    'x-error': 'numeric',
    description:
      options.description ??
      'A number or numeric string; exact to six decimal places, less than 10^12 in magnitude.',
    examples: [99.99, '99.99'],
  });

/** A string field that clients may also send as a number (Laravel's "numeric"). */
export const Numeric = (options: { minimum?: number; exclusiveMinimum?: number; maximum?: number } = {}) =>
  Type.Union([Type.Number(options), Type.String({ pattern: '^\\s*-?(\\d+(\\.\\d*)?|\\.\\d+)\\s*$' })], {
    'x-error': 'numeric',
  });

/** A boolean that clients may also send as the strings "true"/"false" (or 1/0). */
export const BooleanLike = Type.Union(
  [Type.Boolean(), Type.Literal('true'), Type.Literal('false'), Type.Literal(1), Type.Literal(0)],
  {
    'x-error': 'boolean',
  },
);

export const Email = (options: { maxLength?: number } = {}) =>
  Type.String({ format: 'email', maxLength: options.maxLength ?? 255 });

/**
 * An envelope is named in the OpenAPI document after its item (`Partner` → `PartnerResponse`, an
 * array of them → `PartnerArrayResponse`, a page of them → `PartnerListResponse`); an envelope of
 * an untitled item stays inline where it is used.
 */
function envelopeName(
  data: TSchema,
  suffix: string,
  describe: (what: string) => string,
): { title?: string; description?: string } {
  const item = data as { title?: unknown; type?: unknown; items?: { title?: unknown } };
  if (typeof item.title === 'string') {
    return { title: `${item.title}${suffix}`, description: describe(item.title) };
  }
  if (item.type === 'array' && typeof item.items?.title === 'string') {
    return {
      title: `${item.items.title}Array${suffix}`,
      description: describe(`${item.items.title} array`),
    };
  }
  return {};
}

/** The success envelope `{data, status: 1}`. */
export const Success = <T extends TSchema>(data: T) =>
  Type.Object(
    { data, status: Type.Literal(1) },
    envelopeName(
      data,
      'Response',
      (what) => `The success envelope \`{data, status}\` whose data is ${what}.`,
    ),
  );

export const StatusOnly = Type.Object(
  { status: Type.Literal(1) },
  { title: 'StatusResponse', description: 'A success that carries no data.' },
);

const PageLinks = Type.Object(
  {
    first: Type.String(),
    last: Type.Null(),
    prev: Type.Union([Type.String(), Type.Null()]),
    next: Type.Union([Type.String(), Type.Null()]),
  },
  {
    title: 'PageLinks',
    description:
      'Links to the first, previous and next page of a list; `last` is always null (lists are never counted).',
  },
);

const PageMeta = Type.Object(
  {
    current_page: Type.Integer(),
    from: Type.Union([Type.Integer(), Type.Null()]),
    path: Type.String(),
    per_page: Type.Integer(),
    to: Type.Union([Type.Integer(), Type.Null()]),
  },
  {
    title: 'PageMeta',
    description: 'Where this page sits in the list: its number, size and item positions.',
  },
);

/** The paginated list envelope `{data: [...], links, meta, status: 1}`. */
export const Paginated = <T extends TSchema>(item: T) =>
  Type.Object(
    { data: Type.Array(item), links: PageLinks, meta: PageMeta, status: Type.Literal(1) },
    envelopeName(
      item,
      'ListResponse',
      (what) => `A page of a list of ${what} items, with its links and meta.`,
    ),
  );

const errorFields = {
  message: Type.String(),
  errors: Type.Record(Type.String(), Type.Array(Type.String())),
  status: Type.Literal(0),
};

export const ErrorBody = Type.Object(errorFields, {
  title: 'ErrorBody',
  description:
    'An error answer: `message` says what went wrong; `errors` maps fields to messages when the error concerns fields and is empty otherwise; `status` is 0.',
});

/** The same fields as ErrorBody; its own name documents that `errors` lists messages per field. */
export const ValidationErrorBody = Type.Object(errorFields, {
  title: 'ValidationErrorBody',
  description:
    'A refused request (422): `errors` maps each field (dotted path) to its messages; `message` is the first of them, plus ` (and N more errors)` when there are more.',
});

/** Every error status a `/v1` route may answer with; spread into each route's `response`. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  408: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  422: ValidationErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
} as const;

/**
 * A request body schema with one example for the document: a value of the schema's own type, so
 * the compiler checks its fields, and test/openapi.test.ts validates it against the schema.
 */
export function withExample<T extends TSchema>(schema: T, example: Static<T>): T {
  return { ...schema, examples: [example] };
}

/** Program-type body variants, one of them with an example (see `withExample`). */
export function withVariantExample<
  Variants extends Partial<Record<ProgramType, TSchema>>,
  Which extends keyof Variants & ProgramType,
>(variants: Variants, type: Which, example: Static<NonNullable<Variants[Which]>>): Variants {
  const schema = variants[type];
  return schema ? { ...variants, [type]: withExample(schema, example) } : variants;
}

/**
 * `anyOf` of string constants, typed as their union: `Type.Union` over a mapped list is typed
 * `never` (its type needs a tuple), which would let any value through the compiler.
 */
export function literalUnion<const Values extends readonly string[]>(
  values: Values,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<Values[number]>(
    Type.Union(
      values.map((value) => Type.Literal(value)),
      options,
    ),
  );
}
