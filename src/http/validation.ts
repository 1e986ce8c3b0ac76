import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { isCurrencyCode } from '../core/currencies.ts';
import { type AppError, type FieldErrors, validationError } from '../core/errors.ts';
import { messages } from '../core/messages.ts';
import { type AmountProblem, type AmountSign, amountMessage, checkAmount } from '../core/money.ts';

// ajv-formats is CommonJS with its function on `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Formats of our own, known to validation and to the response serializers. */
export const customFormats = {
  'http-url': { type: 'string', validate: isHttpUrl },
  iso4217: { type: 'string', validate: isCurrencyCode },
} as const;

/**
 * `x-amount` (the `Amount` schema): the money rule of core/money.ts, so a bad amount is a 422 on
 * its field in the route's one round of validation. The refusal travels in `params.problem` and
 * becomes Laravel's wording in `messageFor`.
 */
const amountKeyword = {
  keyword: 'x-amount',
  errors: true,
  validate: function validateAmount(options: { sign?: AmountSign }, data: unknown): boolean {
    const checked = checkAmount(data, options.sign ?? 'non-negative');
    if (typeof checked === 'bigint') return true;
    (validateAmount as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      { keyword: 'x-amount', message: checked, params: { problem: checked } },
    ];
    return false;
  },
};

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: false,
    // Query strings carry only text; JSON bodies keep their types ("booleans as booleans").
    coerceTypes: coerceTypes ? 'array' : false,
    useDefaults: true,
    // Unknown body fields are ignored by the services, which read only what they know;
    // stripping them would break union bodies (see style.md).
    removeAdditional: false,
  });
  addFormats(ajv);
  for (const [name, format] of Object.entries(customFormats)) ajv.addFormat(name, format);
  ajv.addKeyword(amountKeyword);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/** Marks a route schema that is documented here but validated per program type (program-variants.ts). */
export const VARIANTS_MARKER = 'x-vouch-by-program-type';

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  if ((schema as Record<string, unknown>)[VARIANTS_MARKER]) return () => true;
  return (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object) as never;
};

export function compileBodyValidator(schema: TSchema): ValidateFunction {
  return bodyAjv.compile(schema as object);
}

export function compileQueryValidator(schema: TSchema): ValidateFunction {
  return queryAjv.compile(schema as object);
}

function pathOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

type Unary = {
  [K in keyof typeof messages]: (typeof messages)[K] extends (path: string) => string ? K : never;
}[keyof typeof messages];

function typeMessage(path: string, type: string): string {
  switch (type) {
    case 'string':
      return messages.string(path);
    case 'integer':
      return messages.integer(path);
    case 'number':
      return messages.numeric(path);
    case 'boolean':
      return messages.boolean(path);
    case 'object':
    case 'array':
      return messages.array(path);
    default:
      return messages.format(path);
  }
}

function formatMessage(path: string, format: string): string {
  switch (format) {
    case 'email':
      return messages.email(path);
    case 'uri':
    case 'url':
    case 'http-url':
      return messages.url(path);
    case 'date':
      return messages.date(path);
    case 'iso4217':
      return messages.invalid(path);
    default:
      return messages.format(path);
  }
}

function messageFor(error: ErrorObject): { path: string; message: string } {
  const path = pathOf(error.instancePath);
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'x-amount')
    return { path, message: amountMessage(params.problem as AmountProblem, path) };
  const custom = schema['x-error'];
  if (typeof custom === 'string' && custom in messages && error.keyword !== 'required') {
    return { path, message: (messages[custom as Unary] as (p: string) => string)(path) };
  }
  switch (error.keyword) {
    case 'required': {
      const field = join(path, String(params.missingProperty));
      return { path: field, message: messages.required(field) };
    }
    case 'additionalProperties': {
      const field = join(path, String(params.additionalProperty));
      return { path: field, message: messages.prohibited(field) };
    }
    case 'type': {
      const types = Array.isArray(params.type) ? params.type : String(params.type).split(',');
      return { path, message: typeMessage(path, String(types.find((t) => t !== 'null') ?? types[0])) };
    }
    case 'minimum':
    case 'maximum':
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
        return { path, message: messages.between(path, schema.minimum, schema.maximum) };
      }
      return {
        path,
        message:
          error.keyword === 'minimum'
            ? messages.min(path, Number(params.limit))
            : messages.max(path, Number(params.limit)),
      };
    case 'exclusiveMinimum':
      return { path, message: messages.gt(path, Number(params.limit)) };
    case 'minLength':
      return {
        path,
        message:
          Number(params.limit) <= 1
            ? messages.required(path)
            : messages.minLength(path, Number(params.limit)),
      };
    case 'maxLength':
      return { path, message: messages.maxLength(path, Number(params.limit)) };
    case 'minItems':
      return {
        path,
        message:
          Number(params.limit) <= 1 ? messages.required(path) : messages.minItems(path, Number(params.limit)),
      };
    case 'maxItems':
      return { path, message: messages.maxItems(path, Number(params.limit)) };
    case 'uniqueItems':
      return { path, message: messages.distinct(path) };
    case 'format':
      return { path, message: formatMessage(path, String(params.format)) };
    default:
      // enum, const, pattern, anyOf without a hint: the value is not one we accept.
      return { path, message: error.keyword === 'pattern' ? messages.format(path) : messages.invalid(path) };
  }
}

/** At most this many messages are listed in a 422's `errors`; `message` still counts them all. */
export const MAX_LISTED_MESSAGES = 50;

/**
 * Turns Ajv's errors into Laravel's `{field: [messages]}`, listing at most `limit` messages and
 * counting every distinct one. A failed union (anyOf) is one error on its field, not one per branch.
 */
export function collectFieldErrors(
  errors: readonly ErrorObject[],
  limit = MAX_LISTED_MESSAGES,
): { fields: FieldErrors; total: number } {
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => e.schemaPath);
  const fields: FieldErrors = {};
  const seen = new Set<string>();
  for (const error of errors) {
    // `if`/`then` reports the failed `then` itself; the `if` error only repeats it on the parent.
    if (error.keyword === 'if') continue;
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') {
      if (unions.some((union) => error.schemaPath.startsWith(`${union}/`))) continue;
    }
    const { path, message } = messageFor(error);
    const key = path || 'body';
    const id = `${key}\u0000${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (seen.size <= limit) (fields[key] ??= []).push(message);
  }
  return { fields, total: seen.size };
}

/** Every message, unbounded (unit tests and callers that list a handful of errors). */
export function fieldErrorsFromAjv(errors: readonly ErrorObject[]): FieldErrors {
  return collectFieldErrors(errors, Number.POSITIVE_INFINITY).fields;
}

/** The 422 of a failed validation: the first messages listed, the summary counting them all. */
export function validationErrorFromAjv(errors: readonly ErrorObject[]): AppError {
  const { fields, total } = collectFieldErrors(errors);
  return validationError(fields, total);
}
