import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { NODE_API_DRIVER_FROM } from '../src/db/sqlite-driver.ts';
import { startServer, testDialects } from './harness.ts';

/**
 * Issue 9: nothing the lockfile installs may require a newer Node than `engines` promises. Two
 * transitive packages (cookie@2 through light-my-request, content-disposition@3 through
 * @fastify/static) declared Node >= 22; package.json `overrides` pins versions that declare 18.
 */
const root = new URL('..', import.meta.url);
const packageJson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

type Version = [number, number, number];
const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text
    .replace(/^[v=]/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies an npm range of the forms engines use (>=, >, <, <=, ^, ~, x, ||, spaces). */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  if (range.trim() === '*' || range.trim() === '') return true;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/\s*(>=|<=|>|<|\^|~)\s*/g, ' $1')
      .split(/\s+/)
      .filter(Boolean)
      .every((comparator) => {
        const [, op = '', version = ''] = /^(>=|<=|>|<|\^|~)?(.*)$/.exec(comparator) ?? [];
        const bound = parse(version.replace(/\.?[x*]/g, ''));
        const parts = version.split('.').filter((p) => p !== 'x' && p !== '*').length;
        if (op === '>=') return compare(v, bound) >= 0;
        if (op === '>') return compare(v, bound) > 0;
        if (op === '<=') return compare(v, bound) <= 0;
        if (op === '<') return compare(v, bound) < 0;
        if (op === '^') return compare(v, bound) >= 0 && v[0] === bound[0];
        if (op === '~')
          return compare(v, bound) >= 0 && v[0] === bound[0] && (parts < 2 || v[1] === bound[1]);
        // A bare version: 20 means 20.x, 20.1 means 20.1.x.
        return v[0] === bound[0] && (parts < 2 || v[1] === bound[1]) && (parts < 3 || v[2] === bound[2]);
      }),
  );
}

test('the range reader agrees with npm on the shapes engines use', () => {
  const cases: [string, string, boolean][] = [
    ['20.19.0', '>=22', false],
    ['20.19.0', '>=18', true],
    ['20.19.0', '18 || 20 || >=22', true],
    ['20.19.0', '^20.12||^22||>=24', true],
    ['20.19.0', '^20.20', false],
    ['20.19.0', '>= 20.19.0', true],
    ['20.19.0', '>=14.0.0 <20', false],
    ['20.19.0', '20.x || >=22', true],
    ['20.19.0', '~20.18', false],
    ['20.19.0', '*', true],
  ];
  for (const [version, range, expected] of cases) assert.equal(satisfies(version, range), expected, range);
});

/**
 * Packages the code loads only from a newer Node, with that Node's major: better-sqlite3 13 runs
 * from Node 22 on, and Node 20 loads better-sqlite3-node20 (12) instead (db/sqlite-driver.ts).
 */
const loadedFromNode: Record<string, number> = { 'node_modules/better-sqlite3': NODE_API_DRIVER_FROM };

test('packages loaded only on a newer Node declare no newer Node than the one that loads them', () => {
  for (const [path, major] of Object.entries(loadedFromNode)) {
    const needs = lock.packages[path]?.engines?.node;
    assert.ok(needs, `${path} is in the lockfile with engines`);
    assert.ok(satisfies(`${major}.0.0`, needs), `${path} needs node ${needs}, loaded from Node ${major}`);
  }
});

test('every package in the lockfile runs on the oldest Node that `engines` allows', () => {
  const floor = /^>=\s*(\d+\.\d+(\.\d+)?)$/.exec(packageJson.engines.node)?.[1];
  assert.ok(floor, `engines.node is a lower bound: ${packageJson.engines.node}`);
  const tooNew = Object.entries<{ version: string; engines?: { node?: string } | string[] }>(lock.packages)
    .filter(([path]) => path && !(path in loadedFromNode))
    .filter(([, meta]) => meta.engines && !Array.isArray(meta.engines) && meta.engines.node)
    .filter(([, meta]) => !satisfies(floor, (meta.engines as { node: string }).node))
    .map(([path, meta]) => `${path}@${meta.version} needs node ${(meta.engines as { node: string }).node}`);
  assert.deepEqual(tooNew, []);
});

test('the pinned content-disposition has the API @fastify/static calls', () => {
  const fromStatic = createRequire(createRequire(import.meta.url).resolve('@fastify/static'));
  const { create } = fromStatic('content-disposition') as { create: (name: string) => string };
  assert.match(create('report.csv'), /^attachment; filename="?report\.csv"?$/);
});

for (const dialect of testDialects().slice(0, 1)) {
  test(`the pinned light-my-request injects requests with cookies and reads Set-Cookie [${dialect}]`, async () => {
    const server = await startServer({
      dialect,
      routes: (app) =>
        app.get('/cookie-echo', { config: { auth: 'public' } }, async (request, reply) => {
          reply.header('set-cookie', 'seen=yes; Path=/; HttpOnly');
          return { cookie: request.headers.cookie ?? null };
        }),
    });
    try {
      const injected = await server.app.inject({ method: 'GET', url: '/cookie-echo', cookies: { a: 'b c' } });
      assert.equal(injected.statusCode, 200);
      assert.deepEqual(injected.json(), { cookie: 'a=b%20c' });
      assert.deepEqual(
        injected.cookies.map((c) => [c.name, c.value]),
        [['seen', 'yes']],
      );
      const docs = await server.request('GET', '/docs/static/swagger-ui.css');
      assert.equal(docs.status, 200);
    } finally {
      await server.close();
    }
  });
}
