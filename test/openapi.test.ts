import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { describeEachDatabase } from './harness.ts';
import { generateOpenApiDocument } from './openapi-document.ts';

test('openapi.json is the generated document (run `npm run openapi` after changing routes)', async () => {
  const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8').trimEnd();
  assert.equal(committed, await generateOpenApiDocument());
});

describeEachDatabase('OpenAPI document and docs page', (server) => {
  test('every API operation has an operationId, a summary, its security and its responses', async () => {
    const res = await server().request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.ok(res.body.components.securitySchemes.apiKey);
    const ids = new Set<string>();
    for (const [path, operations] of Object.entries<any>(res.body.paths)) {
      assert.ok(!path.includes('::') && !/[A-Za-z]\{/.test(path), `${path}: colon paths are literal`);
      for (const [method, operation] of Object.entries<any>(operations)) {
        const what = `${method.toUpperCase()} ${path}`;
        assert.ok(operation.operationId, `${what} has an operationId`);
        assert.ok(!ids.has(operation.operationId), `${what}: operationId is unique`);
        ids.add(operation.operationId);
        assert.ok(operation.summary, `${what} has a summary`);
        assert.ok(operation.responses['200'] ?? operation.responses['201'], `${what} documents its success`);
        if (path.startsWith('/v1')) {
          assert.deepEqual(operation.security, [{ apiKey: [] }], `${what} needs an API key`);
          assert.ok(operation.responses['401'] && operation.responses['422'], `${what} documents its errors`);
        }
      }
    }
    assert.ok(res.body.paths['/v1/program'].put.requestBody, 'request bodies are documented');
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
