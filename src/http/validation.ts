import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { isCurrencyCode } from '../core/currencies.ts';
import { type AppError, type FieldProblem, problem, validationError } from '../core/errors.ts';
import { messages, type RenderedFieldErrors, renderFieldErrors } from '../core/messages.ts';
import { type AmountProblem, type AmountSign, amountFieldProblem, checkAmount } from '../core/money.ts';

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

/** A compiled schema check: whether the data passes, and ajv's errors when it did not. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/**
 * A validator compiled on its first call (docs/adr/0139). Compiling every route's schemas took
 * about a second of CPU in each process that builds the app; a test file calls a few routes, and
 * a server answers sooner after start. A route's first request pays its own compile instead.
 * Fastify reads `errors` from the function it was given, so they are copied onto it.
 */
function compiledOnFirstUse(ajv: Ajv, schema: TSchema): Validator {
  let compiled: ValidateFunction | undefined;
  const validate: Validator = (data) => {
    compiled ??= ajv.compile(schema);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  if ((schema as Record<string, unknown>)[VARIANTS_MARKER]) return () => true;
  return compiledOnFirstUse(httpPart === 'body' ? bodyAjv : queryAjv, schema);
};

export function compileBodyValidator(schema: TSchema): Validator {
  return compiledOnFirstUse(bodyAjv, schema);
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

function typeProblem(path: string, type: string): FieldProblem {
  switch (type) {
    case 'string':
      return problem(path, 'string');
    case 'integer':
      return problem(path, 'integer');
    case 'number':
      return problem(path, 'numeric');
    case 'boolean':
      return problem(path, 'boolean');
    case 'object':
    case 'array':
      return problem(path, 'array');
    default:
      return problem(path, 'format');
  }
}

function formatProblem(path: string, format: string): FieldProblem {
  switch (format) {
    case 'email':
      return problem(path, 'email');
    case 'uri':
    case 'url':
    case 'http-url':
      return problem(path, 'url');
    case 'date':
      return problem(path, 'date');
    case 'iso4217':
      return problem(path, 'invalid');
    default:
      return problem(path, 'format');
  }
}

/** A rule of `x-error`: one that takes no parameter (its wording's only argument is the path). */
const isUnary = (rule: unknown): rule is Unary =>
  typeof rule === 'string' && rule in messages && messages[rule as keyof typeof messages].length === 1;

/** The field problem of one Ajv error; `field` is '' for the body itself. */
function problemOf(error: ErrorObject): FieldProblem {
  const path = pathOf(error.instancePath);
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'x-amount') return amountFieldProblem(params.problem as AmountProblem, path);
  const custom = schema['x-error'];
  if (isUnary(custom) && error.keyword !== 'required') return problem(path, custom);
  const limit = Number(params.limit);
  switch (error.keyword) {
    case 'required':
      return problem(join(path, String(params.missingProperty)), 'required');
    case 'additionalProperties':
      return problem(join(path, String(params.additionalProperty)), 'prohibited');
    case 'type': {
      const types = Array.isArray(params.type) ? params.type : String(params.type).split(',');
      return typeProblem(path, String(types.find((t) => t !== 'null') ?? types[0]));
    }
    case 'minimum':
    case 'maximum':
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
        return problem(path, 'between', schema.minimum, schema.maximum);
      }
      return error.keyword === 'minimum' ? problem(path, 'min', limit) : problem(path, 'max', limit);
    case 'exclusiveMinimum':
      return problem(path, 'gt', limit);
    case 'minLength':
      return limit <= 1 ? problem(path, 'required') : problem(path, 'minLength', limit);
    case 'maxLength':
      return problem(path, 'maxLength', limit);
    case 'minItems':
      return limit <= 1 ? problem(path, 'required') : problem(path, 'minItems', limit);
    case 'maxItems':
      return problem(path, 'maxItems', limit);
    case 'uniqueItems':
      return problem(path, 'distinct');
    case 'format':
      return formatProblem(path, String(params.format));
    default:
      // enum, const, pattern, anyOf without a hint: the value is not one we accept.
      return problem(path, error.keyword === 'pattern' ? 'format' : 'invalid');
  }
}

/** At most this many messages are listed in a 422's `errors`; `message` still counts them all. */
export const MAX_LISTED_MESSAGES = 50;

/**
 * Turns Ajv's errors into field problems, listing at most `limit` and counting every distinct
 * one. A failed union (anyOf) is one error on its field, not one per branch. A problem with the
 * body itself is listed under `body`.
 */
export function collectFieldProblems(
  errors: readonly ErrorObject[],
  limit = MAX_LISTED_MESSAGES,
): { problems: FieldProblem[]; total: number } {
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => e.schemaPath);
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // `if`/`then` reports the failed `then` itself; the `if` error only repeats it on the parent.
    if (error.keyword === 'if') continue;
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') {
      if (unions.some((union) => error.schemaPath.startsWith(`${union}/`))) continue;
    }
    const found = problemOf(error);
    const field = found.field || 'body';
    const id = `${field}\u0000${found.rule}\u0000${JSON.stringify(found.params)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (seen.size <= limit) problems.push({ ...found, field });
  }
  return { problems, total: seen.size };
}

/** Every message, unbounded and worded (unit tests of the schemas' wording). */
export function fieldErrorsFromAjv(errors: readonly ErrorObject[]): RenderedFieldErrors {
  return renderFieldErrors(collectFieldProblems(errors, Number.POSITIVE_INFINITY).problems);
}

/** The 422 of a failed validation: the first problems listed, the summary counting them all. */
export function validationErrorFromAjv(errors: readonly ErrorObject[]): AppError {
  const { problems, total } = collectFieldProblems(errors);
  return validationError(problems, total);
}
