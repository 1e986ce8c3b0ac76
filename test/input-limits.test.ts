import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { before, test } from 'node:test';
import type { ProgramType } from '../src/core/program-types.ts';
import { programTypes } from '../src/core/program-types.ts';
import type { RouteEntry } from '../src/http/route-policy.ts';
import {
  describeEachDatabase,
  type ErrorBody,
  type Reply,
  replyOf,
  stallBoundMs,
  type TestProgram,
  type TestServer,
} from './harness.ts';

/**
 * Issue 9: no input reaches a 500 or holds the server. Walks the app's route table, so routes
 * added later are covered without anyone listing them.
 */

const fill = (url: string, value: string) => url.replace(/\/:([A-Za-z_]+)/g, () => `/${value}`);

function assertErrorBody(reply: Reply, status: number, what: string) {
  assert.equal(reply.status, status, `${what}: ${reply.status} ${reply.text.slice(0, 300)}`);
  assert.equal(reply.headers.get('content-type'), 'application/json', what);
  // The spec's promotion-code delete also says why in `data` (`{status: 0, message}`).
  const body: ErrorBody & { data?: { status?: number } } = reply.error;
  const keys = Object.keys(body).filter((key) => key !== 'data' || body.data?.status !== 0);
  assert.deepEqual(keys.sort(), ['errors', 'message', 'status'], what);
  assert.equal(reply.error.status, 0, what);
}

/** Sends raw bytes as the path (node:http would refuse some of them in a URL object). */
function rawGet(server: TestServer, path: string, token: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'GET',
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve(replyOf(res.statusCode ?? 0, headers, body, text));
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describeEachDatabase('input limits', (server) => {
  const programs = {} as Record<ProgramType, TestProgram>;
  let routes: RouteEntry[];
  const tokenFor = (route: RouteEntry) =>
    route.auth === 'admin'
      ? 'test-admin-token-0123456789'
      : programs[(route.programTypes[0] ?? 'affiliate') as ProgramType].token;
  const apiRoutes = () => routes.filter((r) => r.auth === 'apiKey' || r.auth === 'admin');
  /** Whether a route's body is JSON, as its OpenAPI operation says (a logo's body is its bytes). */
  const takesJson = (route: RouteEntry) => {
    const document = server().app.swagger() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    };
    const operation = document.paths[route.url.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
    const content = operation?.requestBody?.content;
    return content === undefined || 'application/json' in content;
  };

  before(async () => {
    for (const type of programTypes) programs[type] = await server().newProgram(type);
    routes = [...server().app.routeTable.entries];
  });

  test('a body nested too deeply answers 400 on every route, whatever its shape', async () => {
    const bodies = ['['.repeat(10_000) + ']'.repeat(10_000), `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`];
    for (const route of apiRoutes().filter(takesJson)) {
      for (const body of bodies) {
        const reply = await server().request(route.method, fill(route.url, 'x1'), {
          token: tokenFor(route),
          body,
        });
        assertErrorBody(reply, 400, `${route.method} ${route.url}`);
        assert.match(reply.error.message, /nested too deeply/);
      }
    }
    // Within the bound a nested body is read as usual.
    const p = programs.affiliate;
    const fine = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { name: 'Nested', extra: JSON.parse(`${'{"a":'.repeat(20)}1${'}'.repeat(20)}`) },
    });
    assert.equal(fine.status, 200, fine.text);
  });

  test('a NUL character in any body string, key or query value answers 422 on its field', async () => {
    for (const route of apiRoutes()) {
      const what = `${route.method} ${route.url}`;
      if (takesJson(route)) {
        const reply = await server().request(route.method, fill(route.url, 'x1'), {
          token: tokenFor(route),
          body: { name: 'a\u0000b', email: 'ann@example.com' },
        });
        assertErrorBody(reply, 422, what);
        assert.deepEqual(reply.error.errors.name, ['The name field must not contain a NUL character.'], what);
      }
      const query = await server().request(route.method, `${fill(route.url, 'x1')}?email=a%00b`, {
        token: tokenFor(route),
      });
      assertErrorBody(query, 422, `${what} (query)`);
      assert.ok(query.error.errors.email, what);
    }
    const key = await server().request('POST', '/v1/partners', {
      token: programs.affiliate.token,
      body: { email: 'ann@example.com', metadata: { 'k\u0000': 1 } },
    });
    assertErrorBody(key, 422, 'a key with a NUL');
    assert.ok(key.error.errors.metadata);
    const list = await server().request('GET', '/v1/partners', { token: programs.affiliate.token });
    assert.equal(list.body.data.length, 0, 'nothing was written');
  });

  test('a path id with a NUL, out of range or too long answers 404 on every route with an id', async () => {
    const ids = ['a%00b', '%00', '99999999999999999999999', '-1', '1e400', 'x'.repeat(300), 'x'.repeat(5000)];
    for (const route of apiRoutes().filter((r) => r.hasParams)) {
      for (const id of ids) {
        const reply = await server().request(route.method, fill(route.url, id), {
          token: tokenFor(route),
          body: {},
        });
        // A body-less write may first be refused for its body; an id is never a 500 nor a 414.
        const what = `${route.method} ${route.url} with ${id.slice(0, 30)}`;
        assert.ok([404, 422].includes(reply.status), `${what}: ${reply.status} ${reply.text.slice(0, 200)}`);
        assertErrorBody(reply, reply.status, what);
        if (route.method === 'GET') assert.equal(reply.status, 404, what);
      }
    }
  });

  test('a URL that does not decode answers 400 in the error body', async () => {
    for (const path of ['/v1/partners/%ZZ', '/v1/%E0%A4%A', '/admin/v1/programs/%ZZ']) {
      const reply = await rawGet(server(), path, programs.affiliate.token);
      assertErrorBody(reply, 400, path);
      assert.equal(reply.error.message, 'The request URL is malformed.');
      assert.ok(reply.headers.get('x-request-id'));
    }
  });

  test('a huge array is refused at once with a bounded error list, and /health is not delayed', async () => {
    const items = Array(480_000).fill(1).join(',');
    const body = `{"customer":{"key":"c"},"transactions":[${items}]}`;
    assert.ok(body.length < 1024 * 1024);
    const health = async () => {
      const started = performance.now();
      const reply = await server().request('GET', '/health');
      assert.equal(reply.status, 200);
      return performance.now() - started;
    };
    const quiet = Math.max(await health(), await health());
    const started = performance.now();
    const [reply, delayed] = await Promise.all([
      server().request('POST', '/v1/transactions', { token: programs.affiliate.token, body }),
      new Promise<number>((resolve) => setTimeout(() => resolve(health()), 5)),
    ]);
    const elapsed = performance.now() - started;
    assertErrorBody(reply, 422, 'huge transactions array');
    assert.deepEqual(reply.error.errors, {
      transactions: ['The transactions field must not have more than 100 items.'],
    });
    assert.ok(reply.text.length < 1000);
    // 13 s and a 34 MB answer before the bound; budgets leave room for a busy machine.
    assert.ok(elapsed < stallBoundMs(1000), `answered in ${elapsed.toFixed(0)} ms`);
    assert.ok(delayed < quiet + stallBoundMs(500, 0.5), `/health took ${delayed.toFixed(0)} ms beside it`);
  });

  test('validation lists the first 50 messages and counts them all', async () => {
    const transactions = Array.from({ length: 100 }, () => ({ amount: 'x', action: 1 }));
    const reply = await server().request('POST', '/v1/transactions', {
      token: programs.affiliate.token,
      body: { customer: { key: 'c' }, transactions },
    });
    assertErrorBody(reply, 422, 'many bad items');
    const listed = Object.values<string[]>(reply.error.errors).flat();
    assert.equal(listed.length, 50);
    assert.equal(
      reply.error.errors['transactions.0.amount']?.[0],
      'The transactions.0.amount field must be a number.',
    );
    assert.match(
      reply.error.message,
      /^The transactions\.0\.amount field must be a number\. \(and 199 more errors\)$/,
    );
  });

  test('a 1 MiB body of any shape is answered quickly on every route', async () => {
    const megabyte = 1024 * 1024 - 200;
    const shapes = {
      string: JSON.stringify({ name: 'x'.repeat(megabyte - 20), email: 'a@b.co' }),
      numbers: `{"extra":[${Array(Math.floor(megabyte / 2) - 20)
        .fill(1)
        .join(',')}]}`,
      keys: `{"metadata":{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`).join(',')}}}`,
      objects: `[${Array(Math.floor(megabyte / 3) - 10)
        .fill('{}')
        .join(',')}]`,
    };
    let slowest = 0;
    // The server runs in this process: the event loop's longest stall is how long /health
    // (or any other request) could have waited behind one of these bodies.
    const stalls = monitorEventLoopDelay({ resolution: 5 });
    stalls.enable();
    for (const route of apiRoutes().filter((r) => r.method !== 'GET')) {
      for (const [shape, body] of Object.entries(shapes)) {
        const text = body.endsWith('}') || body.endsWith(']') ? body : '{}';
        const started = performance.now();
        const reply = await server().request(route.method, fill(route.url, 'x1'), {
          token: tokenFor(route),
          body: text,
          headers: { 'content-type': 'application/json' },
        });
        const ms = performance.now() - started;
        slowest = Math.max(slowest, ms);
        if (process.env.SHOW_SLOW && ms > 40)
          console.log(`${ms.toFixed(0)} ms ${route.method} ${route.url} ${shape}`);
        const what = `${route.method} ${route.url} ${shape}`;
        assert.ok(reply.status < 500, `${what}: ${reply.status} ${reply.text.slice(0, 200)}`);
        assert.ok(ms < stallBoundMs(2000, 1.5), `${what} took ${ms.toFixed(0)} ms`);
      }
    }
    stalls.disable();
    const longestStallMs = stalls.max / 1e6;
    console.log(
      `slowest 1 MiB body: ${slowest.toFixed(0)} ms; longest event-loop stall ${longestStallMs.toFixed(0)} ms`,
    );
    // 50 ms is the aim (58 ms at most on a quiet run here, 13 s before the bounds); the bound
    // leaves room for a machine whose other work deschedules this process (2 s seen when the
    // machine ran three other test suites).
    assert.ok(longestStallMs < stallBoundMs(1000), `the event loop stalled ${longestStallMs.toFixed(0)} ms`);
  });
});
