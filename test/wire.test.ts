import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../src/core/errors.ts';
import { type AnswerOf, describeEachDatabase, startServer, testDialects } from './harness.ts';

describeEachDatabase(
  'wire conventions',
  (server) => {
    test('malformed JSON answers 400 with the JSON error body', async () => {
      const p = await server().newProgram('affiliate');
      const res = await server().request('PUT', '/v1/program', { token: p.token, body: '{"name": ' });
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(res.body, { message: 'The request body is not valid JSON.', errors: {}, status: 0 });
    });

    test('a body that is not JSON answers 415', async () => {
      const p = await server().newProgram('affiliate');
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await server().request('PUT', '/v1/program', {
          token: p.token,
          body: 'name=x',
          headers: { 'content-type': type },
        });
        assert.equal(res.status, 415, type);
        assert.equal(res.body.status, 0);
      }
    });

    test('a body over 1 MiB answers 413 and changes nothing', async () => {
      const p = await server().newProgram('affiliate', { name: 'Unchanged' });
      const res = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { name: 'x'.repeat(1024 * 1024) },
      });
      assert.equal(res.status, 413);
      assert.equal(res.body.status, 0);
      const after = await server().request('GET', '/v1/program', { token: p.token });
      assert.equal(after.body.data.program.name, 'Unchanged');
    });

    test('an unknown route answers 404 and a wrong method 405 with Allow, both in JSON', async () => {
      const missing = await server().request('GET', '/v1/nothing-here');
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('content-type'), 'application/json');
      assert.deepEqual(Object.keys(missing.error).sort(), ['errors', 'message', 'status']);
      const wrong = await server().request('DELETE', '/v1/program');
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get('allow'), 'GET, PUT');
      assert.equal(wrong.error.status, 0);
    });

    test('responses carry Content-Type application/json exactly and a request id', async () => {
      const p = await server().newProgram('referral');
      for (const path of ['/v1/program', '/health', '/v1/nope']) {
        const res = await server().request('GET', path, { token: p.token });
        assert.equal(res.headers.get('content-type'), 'application/json', path);
        assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, path);
      }
      const echoed = await server().request('GET', '/health', { headers: { 'x-request-id': 'trace-123' } });
      assert.equal(echoed.headers.get('x-request-id'), 'trace-123');
    });

    test('GET and DELETE accept a JSON body, `[]` and an empty body', async () => {
      const p = await server().newProgram('affiliate');
      for (const body of ['[]', '', '{}']) {
        const res = await server().request('GET', '/v1/program', {
          token: p.token,
          body,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.status, 200, `body ${JSON.stringify(body)}`);
      }
      const deleted = await server().request('DELETE', '/v1/program', { token: p.token, body: '[]' });
      assert.equal(deleted.status, 405);
    });

    test('list parameters come from the query first, then from a JSON body', async () => {
      for (let i = 0; i < 3; i++) await server().newProgram('newsletter');
      const fromBody = await server().admin('GET', '/admin/v1/programs', { limit: 2 });
      assert.equal(fromBody.status, 200);
      assert.equal(fromBody.body.meta.per_page, 2);
      assert.equal(fromBody.body.data.length, 2);
      const queryWins = await server().request('GET', '/admin/v1/programs?limit=1', {
        token: 'test-admin-token-0123456789',
        body: { limit: 2 },
      });
      assert.equal(queryWins.body.meta.per_page, 1);
    });

    test('pagination links are absolute and a client can follow next verbatim, even adding limit', async () => {
      for (let i = 0; i < 3; i++) await server().newProgram('newsletter');
      const first = await server().admin('GET', '/admin/v1/programs?limit=2&filter[kind]=x');
      assert.equal(first.status, 200);
      const { links, meta } = first.body;
      assert.ok(links.next?.startsWith(server().url));
      assert.match(links.next ?? '', /page=2/);
      assert.match(decodeURIComponent(links.next ?? ''), /filter\[kind\]=x/);
      assert.equal(links.prev, null);
      assert.equal(meta.path, `${server().url}/admin/v1/programs`);
      assert.deepEqual([meta.from, meta.to, meta.per_page], [1, 2, 2]);
      const next = await server().admin<AnswerOf<'GET', '/admin/v1/programs'>>(
        'GET',
        `${links.next?.slice(server().url.length)}&limit=2`,
      );
      assert.equal(next.status, 200);
      assert.equal(next.body.meta.current_page, 2);
      assert.equal(next.body.meta.from, 3);
      assert.notDeepEqual(next.body.data[0], first.body.data[0]);
      assert.ok(next.body.links.prev);
    });

    test('sort=asc and sort=desc order lists by creation', async () => {
      const desc = await server().admin('GET', '/admin/v1/programs?limit=250');
      const asc = await server().admin('GET', '/admin/v1/programs?limit=250&sort=asc');
      assert.deepEqual(
        asc.body.data.map((p: { id: number }) => p.id),
        [...desc.body.data.map((p: { id: number }) => p.id)].reverse(),
      );
      const bad = await server().admin('GET', '/admin/v1/programs?sort=sideways');
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.error.errors.sort, ['The selected sort is invalid.']);
    });

    test('timestamps carry six fractional digits and a Z', async () => {
      const res = await server().admin('POST', '/admin/v1/programs', { name: 'Clock', type: 'affiliate' });
      assert.match(res.body.data.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    });

    test('an error a service raises answers its own status and message', async () => {
      const res = await server().request('GET', '/test-only/app-error');
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { message: 'nope', errors: {}, status: 0 });
    });

    test('an unexpected error answers 500 with a generic message and leaks nothing', async () => {
      const res = await server().request('GET', '/test-only/explode');
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { message: 'Server Error.', errors: {}, status: 0 });
      assert.doesNotMatch(res.text, /secret|stack|at /);
      assert.ok(res.headers.get('x-request-id'));
    });
  },
  {
    routes: (app) => {
      app.get('/test-only/explode', { config: { auth: 'public' } }, async () => {
        throw new Error('secret internal detail at line 3');
      });
      app.get('/test-only/app-error', { config: { auth: 'public' } }, async () => {
        throw new AppError('forbidden', 'nope');
      });
    },
  },
);

for (const dialect of testDialects()) {
  test(`PUBLIC_URL is the base of pagination links [${dialect}]`, async () => {
    const server = await startServer({ dialect, env: { PUBLIC_URL: 'https://vouch.example.com/' } });
    try {
      await server.newProgram('affiliate');
      const res = await server.admin('GET', '/admin/v1/programs?limit=1');
      assert.equal(res.body.meta.path, 'https://vouch.example.com/admin/v1/programs');
      assert.ok(res.body.links.first.startsWith('https://vouch.example.com/admin/v1/programs?'));
    } finally {
      await server.close();
    }
  });

  test(`/health answers 503 when the database does not [${dialect}]`, async () => {
    const server = await startServer({ dialect });
    try {
      assert.deepEqual((await server.request('GET', '/health')).body, { status: 'ok' });
      await server.deps.database.close();
      const res = await server.request('GET', '/health');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { status: 'unavailable' });
    } finally {
      await server.app.close();
    }
  });
}
