import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ProgramType, programTypeLabel, programTypes } from '../../src/core/program-types.ts';
import {
  type Page,
  type Reply,
  startServer,
  type TestProgram,
  type TestServer,
  testDialects,
} from '../harness.ts';
import { itemAt } from '../items.ts';
import { loadSamples, type RouteSamples } from './route-samples.ts';

/**
 * Suites every `/v1` route runs, read from the routes' own declarations: authentication,
 * read-only keys, program-type availability, unknown and foreign ids, pagination.
 */
const UNKNOWN = 'zzUnknown0001';
// Only `/:name` segments are parameters; `/v1/partners:search` is a literal colon path.
const fill = (url: string, params: Record<string, string> = {}) =>
  url.replace(/\/:([A-Za-z_]+)/g, (_, name: string) => `/${encodeURIComponent(params[name] ?? UNKNOWN)}`);

function assertErrorBody(reply: Reply, status: number, what: string) {
  assert.equal(reply.status, status, `${what}: status ${reply.status} ${JSON.stringify(reply.body)}`);
  assert.equal(reply.headers.get('content-type'), 'application/json', what);
  assert.equal(reply.error.status, 0, what);
  assert.equal(typeof reply.error.message, 'string', what);
  assert.equal(typeof reply.error.errors, 'object', what);
}

for (const dialect of testDialects()) {
  describe(`route contracts [${dialect}]`, () => {
    let server: TestServer;
    let samples: RouteSamples;
    const programs = {} as Record<ProgramType, TestProgram>;
    const others = {} as Record<ProgramType, TestProgram>;
    let revokedToken: string;

    before(async () => {
      samples = await loadSamples();
      server = await startServer({ dialect });
      for (const type of programTypes) {
        programs[type] = await server.newProgram(type);
        others[type] = await server.newProgram(type);
      }
      const key = await server.admin('POST', `/admin/v1/programs/${programs.affiliate.id}/api-keys`, {
        name: 'to revoke',
      });
      revokedToken = key.body.data.token;
      assert.equal((await server.admin('DELETE', `/admin/v1/api-keys/${key.body.data.id}`)).status, 200);
    });
    after(() => server.close());

    test('every route is declared with its auth, and /v1 routes exist', () => {
      const v1 = server.app.routeTable.entries.filter((r) => r.url.startsWith('/v1'));
      assert.ok(v1.length > 0);
      for (const route of v1) assert.equal(route.auth, 'apiKey', `${route.method} ${route.url}`);
    });

    test('no key, a malformed key, an unknown key and a revoked key answer 401', async () => {
      const tokens = [undefined, 'not-a-key', `vk_${'A'.repeat(12)}_${'b'.repeat(32)}`, revokedToken];
      for (const route of server.app.routeTable.entries.filter((r) => r.url.startsWith('/v1'))) {
        for (const token of tokens) {
          const reply = await server.request(route.method, fill(route.url), { token });
          assertErrorBody(reply, 401, `${route.method} ${route.url} with ${token ?? 'no key'}`);
        }
      }
    });

    test('a read-only key may not write: 403', async () => {
      for (const route of server.app.routeTable.entries.filter(
        (r) => r.url.startsWith('/v1') && r.method !== 'GET',
      )) {
        const type = route.programTypes[0] as ProgramType;
        const reply = await server.request(route.method, fill(route.url), {
          token: programs[type].readToken,
          body: {},
        });
        assertErrorBody(reply, 403, `${route.method} ${route.url}`);
      }
    });

    test('a route the program type does not have answers 403 naming the type', async () => {
      for (const route of server.app.routeTable.entries.filter((r) => r.url.startsWith('/v1'))) {
        for (const type of programTypes.filter((t) => !route.programTypes.includes(t))) {
          const reply = await server.request(route.method, fill(route.url), {
            token: programs[type].token,
            body: {},
          });
          assertErrorBody(reply, 403, `${route.method} ${route.url} as ${type}`);
          assert.equal(
            reply.error.message,
            `This endpoint is not available for ${programTypeLabel[type]} programs.`,
          );
        }
      }
    });

    test('an unknown id answers 404 with the error body', async () => {
      for (const route of server.app.routeTable.entries.filter(
        (r) => r.url.startsWith('/v1') && r.hasParams,
      )) {
        const sample = samples[`${route.method} ${route.url}`];
        for (const type of route.programTypes as ProgramType[]) {
          const reply = await server.request(route.method, fill(route.url), {
            token: programs[type].token,
            body: sample?.body ?? {},
          });
          assertErrorBody(reply, 404, `${route.method} ${route.url} as ${type}`);
        }
      }
    });

    test("another program's resource answers 404, as if it did not exist", async () => {
      const missing: string[] = [];
      for (const route of server.app.routeTable.entries.filter(
        (r) => r.url.startsWith('/v1') && r.hasParams,
      )) {
        const sample = samples[`${route.method} ${route.url}`];
        if (!sample?.create) {
          missing.push(`${route.method} ${route.url}`);
          continue;
        }
        for (const type of route.programTypes as ProgramType[]) {
          const params = await sample.create(server, programs[type]);
          const reply = await server.request(route.method, fill(route.url, params), {
            token: others[type].token,
            body: sample.body ?? {},
          });
          assertErrorBody(reply, 404, `${route.method} ${route.url} as another ${type} program`);
        }
      }
      assert.deepEqual(missing, [], 'routes with ids need a `create` sample in their module’s .contract.ts');
    });

    test('lists answer the pagination envelope and 422 on an out-of-range limit or page', async () => {
      for (const route of server.app.routeTable.entries.filter(
        (r) => r.url.startsWith('/v1') && r.paginated,
      )) {
        const sample = samples[`${route.method} ${route.url}`];
        for (const type of route.programTypes as ProgramType[]) {
          const params = sample?.create ? await sample.create(server, programs[type]) : {};
          const path = fill(route.url, params);
          const reply = await server.request<Page>('GET', `${path}?page=1`, { token: programs[type].token });
          const what = `${route.url} as ${type}`;
          assert.equal(reply.status, 200, `${what}: ${reply.text}`);
          assert.deepEqual(Object.keys(reply.body).sort(), ['data', 'links', 'meta', 'status'], what);
          assert.ok(Array.isArray(reply.body.data), what);
          assert.equal(reply.body.links.last, null, what);
          assert.ok(reply.body.links.first?.startsWith(server.url), what);
          assert.equal(reply.body.meta.path, `${server.url}${path}`, what);
          assert.equal(reply.body.meta.current_page, 1, what);
          for (const query of ['limit=100000', 'limit=0', 'limit=abc', 'page=0']) {
            const bad = await server.request('GET', `${path}?${query}`, { token: programs[type].token });
            assertErrorBody(bad, 422, `${what}?${query}`);
            assert.ok(bad.error.errors[itemAt(query.split('='))], `${what}?${query} names the field`);
          }
        }
      }
    });
  });
}
