/**
 * Turns the document @fastify/swagger generates, where every route inlines its bodies, into one
 * where each named wire shape is written once under `components` and referenced by `$ref`.
 *
 * Only the document changes: routes keep validating and serializing with their own inline
 * schemas (the per-program-type validators and serializers of program-variants.ts compile them
 * directly), so a `$ref` never has to be resolved at request time.
 */

import { VARIANTS_MARKER } from './validation.ts';

type Json = Record<string, unknown>;

/** The answer every error status gets, by name; the 422 carries field messages. */
const errorResponses: Record<string, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description: 'The request could not be read (malformed JSON, a bad header, a URL that does not decode).',
  },
  401: { name: 'Unauthorized', description: 'The credentials are missing or not valid.' },
  403: {
    name: 'Forbidden',
    description: "The credentials may not do this, or the program's type has no such endpoint.",
  },
  404: { name: 'NotFound', description: 'No such record in this program, or no such route.' },
  408: { name: 'RequestTimeout', description: 'The request did not arrive in time (headers or body).' },
  413: { name: 'PayloadTooLarge', description: 'The request body is larger than the server accepts.' },
  415: { name: 'UnsupportedMediaType', description: 'The request body is not JSON.' },
  422: {
    name: 'ValidationFailed',
    description: 'A field is missing or not valid; `errors` says which and why.',
  },
  429: { name: 'TooManyRequests', description: 'Too many requests with these credentials; retry later.' },
  500: { name: 'InternalError', description: 'The server failed; the request may be retried.' },
  503: { name: 'ServiceUnavailable', description: 'The server is shutting down; retry the request.' },
};

const ERROR_SCHEMAS = new Set(['#/components/schemas/ErrorBody', '#/components/schemas/ValidationErrorBody']);

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];

export function hoistComponents<T extends object>(document: T): T {
  const doc = document as Json & { paths?: Record<string, Record<string, Json>>; components?: Json };
  const components = (doc.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Record<string, Json>;
  const responses = (components.responses ??= {}) as Record<string, Json>;
  const hoisted = new Map<string, string>();

  /** Replaces a titled schema by a reference to its component, after hoisting what it holds. */
  const visit = (schema: unknown): unknown => {
    if (!isObject(schema)) return schema;
    const copy: Json = { ...schema };
    for (const key of SUBSCHEMA) if (key in copy) copy[key] = visit(copy[key]);
    for (const key of SUBSCHEMA_LISTS)
      if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(visit);
    for (const key of SUBSCHEMA_MAPS) {
      if (isObject(copy[key])) {
        copy[key] = Object.fromEntries(
          Object.entries(copy[key] as Json).map(([name, sub]) => [name, visit(sub)]),
        );
      }
    }
    nameVariants(copy);
    const name = copy.title;
    if (typeof name !== 'string') return copy;
    const text = JSON.stringify(copy);
    const earlier = hoisted.get(name);
    // Two different shapes under one title would make a name mean two things: fail the build.
    if (earlier !== undefined && earlier !== text)
      throw new Error(`OpenAPI: two different schemas are titled ${name}`);
    hoisted.set(name, text);
    schemas[name] = copy;
    return { $ref: `#/components/schemas/${name}` };
  };

  const visitContent = (holder: unknown) => {
    if (!isObject(holder) || !isObject(holder.content)) return;
    for (const media of Object.values(holder.content as Record<string, Json>)) {
      if (isObject(media) && 'schema' in media) media.schema = visit(media.schema);
    }
  };

  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (!isObject(operation)) continue;
      for (const parameter of (operation.parameters as Json[] | undefined) ?? []) {
        parameter.schema = visit(parameter.schema);
        // A query parameter with a default may be left out, whatever the route schema's `required` says.
        if (parameter.in === 'query' && isObject(parameter.schema) && 'default' in parameter.schema) {
          parameter.required = false;
        }
      }
      visitContent(operation.requestBody);
      const answers = (operation.responses ?? {}) as Record<string, Json>;
      for (const [status, answer] of Object.entries(answers)) {
        visitContent(answer);
        const named = errorResponses[status];
        const schema = (answer.content as Record<string, Json> | undefined)?.['application/json']?.schema;
        if (!named || !isObject(schema) || !ERROR_SCHEMAS.has(schema.$ref as string)) continue;
        // A route that answers this status with another body keeps its own answer inline.
        const shared = responses[named.name]?.content as Record<string, { schema: Json }> | undefined;
        if (shared && shared['application/json']?.schema?.$ref !== schema.$ref) continue;
        responses[named.name] ??= {
          description: named.description,
          content: { 'application/json': { schema } },
        };
        answers[status] = { $ref: `#/components/responses/${named.name}` };
      }
    }
  }

  components.schemas = sortedByName(schemas);
  components.responses = sortedByName(responses);
  return document;
}

/**
 * A union of program-type variants (program-variants.ts) says which branch is whose: its marker
 * becomes a map from program type to component, and its description names them, since no field of
 * the body tells the variants apart (the API key's program does).
 */
function nameVariants(schema: Json): void {
  const types = schema[VARIANTS_MARKER];
  const branches = schema.anyOf;
  if (!Array.isArray(types) || !Array.isArray(branches) || types.length !== branches.length) return;
  const byType = Object.fromEntries(
    types.map((type, i) => [type, (branches[i] as Json).$ref ?? branches[i]]),
  );
  schema[VARIANTS_MARKER] = byType;
  const names = Object.entries(byType).map(
    ([type, ref]) => `${type} → ${typeof ref === 'string' ? ref.split('/').at(-1) : 'inline'}`,
  );
  schema.description ??= `One variant per program type of the API key: ${names.join(', ')}.`;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Components in name order, so that the committed document does not churn with route order. */
function sortedByName<V>(record: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
