import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { present } from '../src/core/present.ts';
import type { ProgramType } from '../src/core/program-types.ts';
import { customFormats } from '../src/http/validation.ts';
import type { TestProgram, TestServer } from './harness.ts';
import { itemAt } from './items.ts';

/**
 * The fuzzing suite (issue 9), driven by the server's own `/openapi.json`: for every operation,
 * fast-check builds requests from its documented parameters and body (valid values, boundary
 * values, then malformed ones: wrong types, huge strings and arrays, unicode, NUL, nulls,
 * server-owned properties injected). Every answer must be below 500, JSON, and valid against the
 * schema documented for its status (Ajv, strict); an injected server-owned value must never come
 * back. `npm run fuzz` runs it at length; test/fuzz.test.ts runs a few requests per route.
 */

type Json = Record<string, any>;

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** Values no request may turn into stored state; their text must never come back. */
const INJECTED = {
  program_id: 987_654_321,
  id: 'INJECTEDid77',
  status: 'injected_status',
  created_at: '1999-09-09T09:09:09.000000Z',
  updated_at: '1999-09-09T09:09:09.000000Z',
  times_redeemed: 4_242_424,
  public_id: 'INJECTEDpub7',
};
const INJECTED_TEXTS = [
  '987654321',
  'INJECTEDid77',
  'injected_status',
  '1999-09-09T09:09:09',
  '4242424',
  'INJECTEDpub7',
];
/** The property each text stands for (created_at and updated_at share one). */
const INJECTED_KEYS = ['program_id', 'id', 'status', 'created_at', 'times_redeemed', 'public_id'];

export interface FuzzReport {
  operations: number;
  requests: number;
  byStatus: Record<string, number>;
  failures: string[];
}

function resolve(document: Json, schema: Json | undefined): Json | undefined {
  let current = schema;
  for (let i = 0; current?.$ref && i < 10; i++) {
    const name = String(current.$ref).replace('#/components/schemas/', '');
    current = document.components.schemas[name];
  }
  return current;
}

/** Values that fit a schema (bounded sizes), as fast-check arbitraries. */
function fitting(document: Json, raw: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, raw);
  if (!schema || depth > 6) return fc.constant(undefined);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches) && branches.length > 0) {
    return fc.oneof(...branches.map((b: Json) => fitting(document, b, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.format === 'http-url' || schema.format === 'uri') return fc.webUrl();
      if (schema.format === 'date') return fc.constantFrom('2025-04-30', '2026-01-01');
      if (schema.format === 'iso4217') return fc.constantFrom('USD', 'EUR', 'usd');
      return fc.string({
        minLength: schema.minLength ?? 0,
        maxLength: Math.max(schema.minLength ?? 0, Math.min(schema.maxLength ?? 16, 16)),
      });
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 2 ** 31) });
    case 'number':
      return fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.double({ min: 0, max: 1000, noNaN: true }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fitting(document, schema.items, depth + 1), {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object': {
      const properties = (schema.properties ?? {}) as Json;
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, child] of Object.entries(properties))
        record[key] = fitting(document, child, depth + 1);
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values meant to break things: wrong types, edges, huge, unicode, NUL, nulls. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, '', ' ', 0, -1, 2 ** 53, -(2 ** 63), 1e308, -0.0000001, true, [], {}, '0', 'null'),
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    'e\u0301',
    '\uFEFF',
    '<script>',
    "'; drop table partners; --",
  ),
  fc.constantFrom('x'.repeat(10_000), Array(2000).fill(1), { deep: { deeper: { deepest: [[[['x']]]] } } }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Every property name a schema declares, at any depth: a declared one is the client's to set. */
function declaredNames(
  document: Json,
  raw: Json | undefined,
  names = new Set<string>(),
  depth = 0,
): Set<string> {
  const schema = resolve(document, raw);
  if (!schema || depth > 8) return names;
  for (const [key, child] of Object.entries<Json>(schema.properties ?? {})) {
    names.add(key);
    declaredNames(document, child, names, depth + 1);
  }
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    declaredNames(document, branch, names, depth + 1);
  }
  if (schema.items) declaredNames(document, schema.items, names, depth + 1);
  return names;
}

function mutate(document: Json, schema: Json | undefined): fc.Arbitrary<unknown> {
  const shape = fitting(document, schema);
  // Server-owned only where the route does not let the client set it (an `id` may be given on create).
  const declared = declaredNames(document, schema);
  const owned = Object.keys(INJECTED).filter((key) => !declared.has(key));
  return fc.oneof(
    { weight: 3, arbitrary: shape },
    {
      weight: 3,
      arbitrary: fc.tuple(shape, fc.string({ maxLength: 12 }), hostile).map(([value, key, bad]) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad;
        const keys = Object.keys(value);
        const target = keys.length > 0 ? itemAt(keys, key.length % keys.length) : key;
        return { ...value, [target]: bad };
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(shape, fc.subarray(owned.length > 0 ? owned : ['program_id'], { minLength: 1 }))
        .map(([value, keys]) => {
          const base = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
          const injected = Object.fromEntries(keys.map((k) => [k, INJECTED[k as keyof typeof INJECTED]]));
          return { ...base, ...injected, update: { ...injected } };
        }),
    },
    { weight: 1, arbitrary: hostile },
  );
}

function makeValidator(document: Json) {
  const ajv = new Ajv({ strict: true, allErrors: false, strictTypes: false, strictTuples: false });
  addFormats(ajv);
  for (const [name, format] of Object.entries(customFormats)) ajv.addFormat(name, format);
  for (const keyword of ['x-vouch-by-program-type', 'x-amount', 'x-error', 'example'])
    ajv.addKeyword(keyword);
  // Each component is a schema of its own, named by the address its `$ref`s use.
  const rebase = (text: string) => text.replaceAll('"#/components/schemas/', '"https://vouch.test/schemas/');
  for (const [name, schema] of Object.entries<Json>(document.components.schemas)) {
    ajv.addSchema({
      ...JSON.parse(rebase(JSON.stringify(schema))),
      $id: `https://vouch.test/schemas/${name}`,
    });
  }
  const cache = new Map<string, ValidateFunction>();
  return (schema: Json): ValidateFunction => {
    const key = JSON.stringify(schema);
    let validate = cache.get(key);
    if (!validate) {
      const rebased = JSON.parse(rebase(key));
      validate = ajv.compile(rebased);
      cache.set(key, validate);
    }
    return validate;
  };
}

/**
 * Fuzzes every operation of `/openapi.json` with `runs` requests each (write routes get
 * `runs × writeFactor`), as programs of each type the route has.
 */
export async function fuzzServer(
  server: TestServer,
  options: { runs: number; writeFactor?: number; seed?: number },
): Promise<FuzzReport> {
  const document = (await server.request<Json>('GET', '/openapi.json')).body;
  const validatorFor = makeValidator(document);
  const programs = new Map<ProgramType, TestProgram>();
  const programFor = async (type: ProgramType) => {
    let program = programs.get(type);
    if (!program) programs.set(type, (program = await server.newProgram(type)));
    return program;
  };
  const report: FuzzReport = { operations: 0, requests: 0, byStatus: {}, failures: [] };
  const routes = server.app.routeTable.entries;

  for (const [path, operations] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      const route = routes.find((r) => r.url === url && r.method === method.toUpperCase());
      if (!route || route.auth === 'public') continue;
      report.operations++;
      const type = (route.programTypes[0] ?? 'affiliate') as ProgramType;
      const token = route.auth === 'admin' ? 'test-admin-token-0123456789' : (await programFor(type)).token;
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
      const parameters = (operation.parameters ?? []) as Json[];
      const pathParams = parameters.filter((p) => p.in === 'path');
      const queryParams = parameters.filter((p) => p.in === 'query');
      const write = method !== 'get';
      const owned = new Set(
        Object.keys(INJECTED).filter((key) => !declaredNames(document, bodySchema).has(key)),
      );
      const runs = write ? options.runs * (options.writeFactor ?? 1) : options.runs;

      const request = fc.record({
        // `.` and `..` are resolved by the client before they are sent: another path, not this route.
        path: fc.tuple(
          ...pathParams.map(() =>
            fc
              .oneof(fc.string({ minLength: 1, maxLength: 20 }), hostile)
              .filter((value) => value !== '.' && value !== '..'),
          ),
        ),
        query: fc.record(
          Object.fromEntries(queryParams.map((p) => [p.name as string, mutate(document, p.schema)])),
          { requiredKeys: [] },
        ),
        body: bodySchema ? mutate(document, bodySchema) : fc.constant(undefined),
      });

      await fc.assert(
        fc.asyncProperty(request, async ({ path: values, query, body }) => {
          let filled = path;
          pathParams.forEach((p, i) => {
            filled = filled.replace(`{${p.name}}`, encodeURIComponent(String(values[i] ?? 'x')));
          });
          const search = new URLSearchParams();
          for (const [key, value] of Object.entries(query)) {
            if (value !== undefined)
              search.set(key, typeof value === 'string' ? value : JSON.stringify(value));
          }
          const target = search.size > 0 ? `${filled}?${search}` : filled;
          const reply = await server.request(method.toUpperCase(), target, {
            token,
            ...(body !== undefined ? { body } : {}),
          });
          report.requests++;
          report.byStatus[reply.status] = (report.byStatus[reply.status] ?? 0) + 1;
          const what = `${method.toUpperCase()} ${target.slice(0, 120)} ${JSON.stringify(body)?.slice(0, 200)}`;
          const fail = (problem: string) => {
            if (report.failures.length < 50) report.failures.push(`${what}: ${problem}`);
          };
          if (reply.status >= 500) return fail(`${reply.status} ${reply.text.slice(0, 200)}`);
          if (reply.headers.get('content-type') !== 'application/json') return fail('not application/json');
          const documented = operation.responses?.[String(reply.status)];
          if (!documented) return fail(`status ${reply.status} is not documented`);
          const response = documented.$ref
            ? document.components.responses[
                present(String(documented.$ref).split('/').pop(), 'a response name')
              ]
            : documented;
          const schema = response?.content?.['application/json']?.schema;
          if (schema && !validatorFor(schema)(reply.body)) {
            return fail(`${reply.status} body does not match its schema: ${reply.text.slice(0, 200)}`);
          }
          // Only the data: pagination links echo the query string as sent.
          const data = JSON.stringify((reply.body as Json)?.data ?? '');
          if (reply.status < 300) {
            for (const text of INJECTED_TEXTS.filter((_, i) => owned.has(itemAt(INJECTED_KEYS, i)))) {
              if (data.includes(text)) return fail(`injected ${text} came back: ${data.slice(0, 200)}`);
            }
          }
        }),
        { numRuns: runs, seed: options.seed, endOnFailure: false, interruptAfterTimeLimit: 10 * 60_000 },
      );
    }
  }
  return report;
}
