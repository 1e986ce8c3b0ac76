import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ProgramType, programTypes } from '../src/core/program-types.ts';
import { loadSamples, type RouteSamples } from './contracts/route-samples.ts';
import { startServer, type TestProgram, type TestServer, testDialects } from './harness.ts';

/**
 * Tenant isolation, generated from the route table (issue 9): for every route with an id, another
 * program's id answers exactly the 404 of an id that does not exist; no list shows another
 * program's rows. Routes added later are covered through their module's `.contract.ts` samples.
 * Prints its figures.
 */
const fill = (url: string, params: Record<string, string>, fallback: string) =>
  url.replace(/\/:([A-Za-z_]+)/g, (_, name: string) => `/${encodeURIComponent(params[name] ?? fallback)}`);

for (const dialect of testDialects()) {
  describe(`tenant isolation [${dialect}]`, () => {
    let server: TestServer;
    let samples: RouteSamples;
    const owners = {} as Record<ProgramType, TestProgram>;
    const strangers = {} as Record<ProgramType, TestProgram>;
    /** Path parameters of records created in each owner program. */
    const created = {} as Record<ProgramType, string[]>;
    let cases = 0;
    let leaks: string[] = [];

    before(async () => {
      samples = await loadSamples();
      server = await startServer({ dialect });
      for (const type of programTypes) {
        owners[type] = await server.newProgram(type);
        strangers[type] = await server.newProgram(type);
        created[type] = [];
      }
    });
    after(async () => {
      console.log(`tenant isolation [${dialect}]: ${cases} cases, ${leaks.length} leaks`);
      await server.close();
    });

    test("another program's id answers the very 404 of a missing id, on every route with an id", async () => {
      leaks = [];
      const routes = server.app.routeTable.entries.filter((r) => r.url.startsWith('/v1') && r.hasParams);
      for (const route of routes) {
        const sample = samples[`${route.method} ${route.url}`];
        if (!sample?.create) continue;
        for (const type of route.programTypes as ProgramType[]) {
          const params = await sample.create(server, owners[type]);
          created[type].push(...Object.values(params));
          const missing = Object.fromEntries(Object.keys(params).map((k) => [k, `zz${k}Missing01`]));
          const body = sample.body ?? {};
          const foreign = await server.request(route.method, fill(route.url, params, 'x'), {
            token: strangers[type].token,
            body,
          });
          const absent = await server.request(route.method, fill(route.url, missing, 'x'), {
            token: strangers[type].token,
            body,
          });
          cases++;
          const what = `${route.method} ${route.url} as another ${type} program`;
          if (foreign.status !== 404 || foreign.text !== absent.text) {
            leaks.push(
              `${what}: ${foreign.status} ${foreign.text.slice(0, 120)} vs ${absent.text.slice(0, 120)}`,
            );
          }
        }
      }
      assert.ok(cases > 0);
      assert.deepEqual(leaks, []);
    });

    test("no list shows another program's rows", async () => {
      const lists = server.app.routeTable.entries.filter(
        (r) => r.url.startsWith('/v1') && r.method === 'GET' && !r.hasParams,
      );
      const found: string[] = [];
      for (const route of lists) {
        for (const type of route.programTypes as ProgramType[]) {
          const reply = await server.request('GET', `${route.url}?limit=100`, {
            token: strangers[type].token,
          });
          cases++;
          for (const value of created[type]) {
            if (value.length >= 8 && reply.text.includes(value))
              found.push(`${route.url} as ${type} shows ${value}`);
          }
        }
      }
      assert.deepEqual(found, []);
    });
  });
}
