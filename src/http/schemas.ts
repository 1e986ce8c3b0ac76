import { type TSchema, Type } from 'typebox';

/** Shared wire pieces: envelopes, error bodies and field types every module reuses. */

export const Timestamp = Type.String({
  description: 'ISO 8601 in UTC with microseconds',
  examples: ['2025-04-30T16:44:13.000000Z'],
});
export const DateOnly = Type.String({ description: 'YYYY-MM-DD', examples: ['2025-04-30'] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const NullableString = Type.Union([Type.String(), Type.Null()]);

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

export const Success = <T extends TSchema>(data: T) => Type.Object({ data, status: Type.Literal(1) });

export const StatusOnly = Type.Object({ status: Type.Literal(1) });

export const Paginated = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    links: Type.Object({
      first: Type.String(),
      last: Type.Null(),
      prev: Type.Union([Type.String(), Type.Null()]),
      next: Type.Union([Type.String(), Type.Null()]),
    }),
    meta: Type.Object({
      current_page: Type.Integer(),
      from: Type.Union([Type.Integer(), Type.Null()]),
      path: Type.String(),
      per_page: Type.Integer(),
      to: Type.Union([Type.Integer(), Type.Null()]),
    }),
    status: Type.Literal(1),
  });

/**
 * The 200 of a route whose response depends on the caller's program type (`config.variants`):
 * http/program-variants.ts replaces it with the variants; it keeps the declaration complete.
 */
export const PaginatedPlaceholder = Paginated(Type.Unknown());
export const SuccessPlaceholder = Success(Type.Unknown());

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    errors: Type.Record(Type.String(), Type.Array(Type.String())),
    status: Type.Literal(0),
  },
  { title: 'Error' },
);

/** Every error status a `/v1` route may answer with; spread into each route's `response`. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  422: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
} as const;
