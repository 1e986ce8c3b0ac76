import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { TSchema } from 'typebox';
import { compileBodyValidator, VARIANTS_MARKER } from '../src/http/validation.ts';
import { describeEachDatabase } from './harness.ts';
import { generateOpenApiDocument } from './openapi-document.ts';

const committedText = () => readFileSync(new URL('../openapi.json', import.meta.url), 'utf8').trimEnd();

test('openapi.json is the generated document (run `npm run openapi` after changing routes)', async () => {
  assert.equal(committedText(), await generateOpenApiDocument());
});

test('openapi.json is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
  const document = JSON.parse(committedText());
  const result = await new Validator().validate(document);
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
  const refs = collectRefs(document);
  assert.ok(refs.length > 500, 'shared shapes are referenced');
  for (const ref of new Set(refs))
    assert.notEqual(resolvePointer(document, ref), undefined, `${ref} resolves`);
  for (const name of Object.keys(document.components.schemas)) {
    assert.ok(refs.includes(`#/components/schemas/${name}`), `component ${name} is used`);
  }
});

test('openapi.json writes each shared shape once, under components, with a stable name', () => {
  const text = committedText();
  const document = JSON.parse(text);
  // About 19.6 kB per operation (1.37 MB for 70) when every route inlined its bodies; about 5 kB
  // with shared components. Per operation, so that new routes do not move the canary.
  const operations = Object.values(document.paths as Record<string, object>).reduce(
    (sum, methods) => sum + Object.keys(methods).length,
    0,
  );
  const perOperation = Math.round(text.length / operations);
  assert.ok(perOperation < 8_000, `openapi.json has ${perOperation} bytes per operation`);

  const { schemas, responses } = document.components;
  for (const name of ['ErrorBody', 'ValidationErrorBody', 'PageLinks', 'PageMeta', 'StatusResponse']) {
    assert.ok(schemas[name]?.description, `${name} is a documented component`);
  }
  for (const name of ['Partner', 'PartnerResponse', 'PartnerEntryListResponse', 'Webhook', 'ReferralLink']) {
    assert.ok(schemas[name], `${name} is a component`);
  }
  assert.deepEqual(schemas.PartnerEntryListResponse.properties.links, {
    $ref: '#/components/schemas/PageLinks',
  });
  assert.deepEqual(schemas.PartnerResponse.properties.data, { $ref: '#/components/schemas/Partner' });
  assert.deepEqual(responses.ValidationFailed.content['application/json'].schema, {
    $ref: '#/components/schemas/ValidationErrorBody',
  });
  assert.deepEqual(responses.Unauthorized.content['application/json'].schema, {
    $ref: '#/components/schemas/ErrorBody',
  });

  const ids = new Set<string | undefined>();
  for (const [path, operations] of Object.entries<Record<string, DocumentOperation>>(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const what = `${method.toUpperCase()} ${path}`;
      assert.ok(!ids.has(operation.operationId), `${what}: operationId ${operation.operationId} is unique`);
      ids.add(operation.operationId);
      if (path.startsWith('/v1')) {
        assert.deepEqual(operation.responses['401'], { $ref: '#/components/responses/Unauthorized' }, what);
        assert.deepEqual(
          operation.responses['422'],
          { $ref: '#/components/responses/ValidationFailed' },
          what,
        );
      }
    }
  }
  // A titled schema left inline in a route would be a shape written twice.
  assert.doesNotMatch(JSON.stringify(document.paths), /"title":/);
});

test('a shape that varies by program type is a union of named variants, each marked with its type', () => {
  const document = JSON.parse(committedText());
  const overview = document.paths['/v1/program'].get.responses['200'].content['application/json'].schema;
  assert.deepEqual(overview.anyOf, [
    { $ref: '#/components/schemas/AffiliateProgramOverviewResponse' },
    { $ref: '#/components/schemas/ReferralProgramOverviewResponse' },
    { $ref: '#/components/schemas/NewsletterProgramOverviewResponse' },
  ]);
  assert.deepEqual(overview['x-vouch-by-program-type'], {
    affiliate: '#/components/schemas/AffiliateProgramOverviewResponse',
    referral: '#/components/schemas/ReferralProgramOverviewResponse',
    newsletter: '#/components/schemas/NewsletterProgramOverviewResponse',
  });
  const update = document.paths['/v1/program'].put.requestBody.content['application/json'].schema;
  assert.equal(update['x-vouch-by-program-type'].referral, '#/components/schemas/UpdateReferralProgramBody');
  assert.equal(
    document.components.schemas.AffiliateProgramOverviewResponse.properties.data.$ref,
    '#/components/schemas/AffiliateProgramOverview',
  );
});

test('every operation says what it does; every request body has an example its schema accepts', () => {
  const document = JSON.parse(committedText());
  let bodies = 0;
  for (const [path, operations] of Object.entries<Record<string, Operation>>(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const what = `${method.toUpperCase()} ${path}`;
      assert.ok((operation.description ?? '').length >= 30, `${what} has a description`);
      for (const [media, content] of Object.entries(operation.requestBody?.content ?? {})) {
        const examples =
          content.example !== undefined
            ? [content.example]
            : Object.values(content.examples ?? {}).map((named) => named.value);
        assert.ok(examples.length > 0, `${what} (${media}) has an example`);
        const validate = compileBodyValidator(inlineRefs(document, content.schema) as TSchema);
        for (const example of examples) {
          // The validator fills defaults in: it gets a copy.
          assert.ok(validate(structuredClone(example)), `${what}: ${JSON.stringify(validate.errors)}`);
        }
        bodies++;
      }
    }
  }
  assert.ok(bodies >= 42, `${bodies} request bodies checked`);
});

type Operation = {
  description?: string;
  requestBody?: {
    content: Record<
      string,
      { schema: unknown; example?: unknown; examples?: Record<string, { value: unknown }> }
    >;
  };
};

/** A schema of the document with its `$ref`s replaced by their targets (and no variant marker). */
function inlineRefs(document: unknown, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(document, item));
  if (!node || typeof node !== 'object') return node;
  const { $ref, [VARIANTS_MARKER]: _marker, ...rest } = node as Record<string, unknown>;
  if (typeof $ref === 'string') return inlineRefs(document, resolvePointer(document, $ref));
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlineRefs(document, value)]));
}

function collectRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else collectRefs(value, found);
    }
  }
  return found;
}

/** The parts of the served document these tests read. */
type ServedDocument = {
  openapi: string;
  components: { securitySchemes: { apiKey?: unknown } };
  paths: { [path: string]: { [method: string]: DocumentOperation } };
};

/** What these tests read of an operation of the document. */
type DocumentOperation = {
  operationId?: string;
  summary?: string;
  security?: unknown;
  requestBody?: unknown;
  responses: { [status: string]: unknown };
};

function resolvePointer(document: unknown, ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `${ref} is local`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, part) =>
        node !== null && typeof node === 'object' ? new Map(Object.entries(node)).get(part) : undefined,
      document,
    );
}

describeEachDatabase('OpenAPI document and docs page', (server) => {
  test('every API operation has an operationId, a summary, its security and its responses', async () => {
    const res = await server().request<ServedDocument>('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.ok(res.body.components.securitySchemes.apiKey);
    const ids = new Set<string>();
    for (const [path, operations] of Object.entries(res.body.paths)) {
      assert.ok(!path.includes('::') && !/[A-Za-z]\{/.test(path), `${path}: colon paths are literal`);
      for (const [method, operation] of Object.entries(operations)) {
        const what = `${method.toUpperCase()} ${path}`;
        assert.ok(operation.operationId, `${what} has an operationId`);
        assert.ok(!ids.has(operation.operationId), `${what}: operationId is unique`);
        ids.add(operation.operationId);
        assert.ok(operation.summary, `${what} has a summary`);
        const success =
          operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['302'];
        assert.ok(success, `${what} documents its success`);
        if (path.startsWith('/v1')) {
          assert.deepEqual(operation.security, [{ apiKey: [] }], `${what} needs an API key`);
          assert.ok(operation.responses['401'] && operation.responses['422'], `${what} documents its errors`);
        }
      }
    }
    assert.ok(res.body.paths['/v1/program']?.put?.requestBody, 'request bodies are documented');
  });

  test('GET /docs renders the reference from local assets', async () => {
    const page = await server().request('GET', '/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.text, /swagger-ui/i);
    assert.doesNotMatch(page.text, /https?:\/\/(cdn|unpkg|cdnjs)/);
    const script = page.text.match(/src="([^"]+\.js)"/)?.[1];
    assert.ok(script, 'the page loads its script from Vouch itself');
    const asset = await server().request('GET', new URL(script, `${server().url}/docs/`).pathname);
    assert.equal(asset.status, 200);
  });
});
