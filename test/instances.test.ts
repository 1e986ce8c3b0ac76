import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { before, test } from 'node:test';
import pg from 'pg';
import { randomAlphanumeric } from '../src/core/ids.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { freePort } from './free-port.ts';
import {
  ADMIN_TOKEN,
  type AnswerOf,
  redisReachable,
  stallBoundMs,
  startupBudgetMs,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  testDialects,
  useCompiledBuild,
} from './harness.ts';

/**
 * Several instances (issue 9): two Vouch processes (the compiled build) on one PostgreSQL schema
 * and one Redis, started at the same moment on an empty schema. Prints its figures.
 */
const REDIS_URL = TEST_REDIS_URL;
const root = new URL('..', import.meta.url).pathname;

before(useCompiledBuild);

interface Instance {
  child: ChildProcess;
  request<const M extends string, const P extends string>(
    method: M,
    path: P,
    options?: { token?: string; body?: unknown },
  ): Promise<{ status: number; body: AnswerOf<M, P> }>;
  admin<const M extends string, const P extends string>(
    method: M,
    path: P,
    body?: unknown,
  ): Promise<{ status: number; body: AnswerOf<M, P> }>;
  newProgram(type: string): Promise<{ id: number; token: string }>;
}

async function startInstance(databaseUrl: string): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      REDIS_URL,
      RATE_LIMIT_PER_MINUTE: '100',
      WORKER: 'off',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const request = async (method: string, path: string, options: { token?: string; body?: unknown } = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  };
  const deadline = Date.now() + startupBudgetMs();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`instance exited with ${child.exitCode}`);
    const up = await request('GET', '/health').then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error('instance did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
  const admin = (method: string, path: string, body?: unknown) =>
    request(method, path, { token: ADMIN_TOKEN, body });
  return {
    child,
    request,
    admin,
    newProgram: async (type) => {
      const program = await admin('POST', '/admin/v1/programs', {
        name: 'Instances',
        type,
        website: 'https://shop.example.com',
      });
      const key = await admin('POST', `/admin/v1/programs/${program.body.data.id}/api-keys`, {
        name: 'full',
      });
      return { id: program.body.data.id, token: key.body.data.token };
    },
  };
}

test('two processes on one PostgreSQL and Redis: migrations once, one record, one budget, one revocation', async (t) => {
  if (!testDialects().includes('postgres')) return t.skip('PostgreSQL is not in this run');
  if (!(await redisReachable())) {
    if (process.env.CI) assert.fail(`Redis at ${REDIS_URL} is unreachable`);
    return t.skip('Redis unreachable');
  }
  const schema = `t_inst_${process.pid}_${randomAlphanumeric(6).toLowerCase()}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('schema', schema);
  const instances: Instance[] = [];
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    // Both migrate the empty schema at once.
    const started = await Promise.allSettled([startInstance(url.toString()), startInstance(url.toString())]);
    for (const s of started) if (s.status === 'fulfilled') instances.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const [a, b] = instances as [Instance, Instance];
    const applied = (await client.query(`select name from ${schema}.kysely_migration`)).rows as {
      name: string;
    }[];
    assert.deepEqual(
      applied.map((r) => r.name).sort(),
      Object.keys(migrations).sort(),
      'every migration applied exactly once',
    );

    const program = await a.newProgram('affiliate');
    // 50 concurrent creates of one partner, spread over both instances: one record.
    const creates = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? b : a).request('POST', '/v1/partners', {
          token: program.token,
          body: { email: 'same@example.com', name: 'Same' },
        }),
      ),
    );
    const created = creates.filter((r) => r.status === 201).length;
    const taken = creates.filter((r) => r.status === 422).length;
    const list = await b.request('GET', '/v1/partners', { token: program.token });
    assert.equal(created, 1, creates.map((r) => r.status).join(','));
    assert.equal(taken, 49);
    assert.equal(list.body.data.length, 1);

    // A budget of 100 a minute across both: exactly 100 served.
    const key = await a.admin('POST', `/admin/v1/programs/${program.id}/api-keys`, { name: 'budget' });
    const budgetToken = key.body.data.token;
    const statuses = await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        (i % 2 ? b : a).request('GET', '/v1/program', { token: budgetToken }),
      ),
    );
    const served = statuses.filter((r) => r.status === 200).length;
    const limited = statuses.filter((r) => r.status === 429).length;
    assert.equal(served, 100);
    assert.equal(limited, 30);

    // A revoked key is refused by both within one second.
    const doomed = await a.admin('POST', `/admin/v1/programs/${program.id}/api-keys`, { name: 'doomed' });
    for (const s of [a, b]) {
      assert.equal((await s.request('GET', '/v1/test', { token: doomed.body.data.token })).status, 200);
    }
    const revokedAt = performance.now();
    assert.equal((await b.admin('DELETE', `/admin/v1/api-keys/${doomed.body.data.id}`)).status, 200);
    const refusedAfter: number[] = [];
    for (const s of [a, b]) {
      for (;;) {
        const reply = await s.request('GET', '/v1/test', { token: doomed.body.data.token });
        if (reply.status === 401) break;
        assert.ok(performance.now() - revokedAt < 3000, 'still accepted after 3 s');
        await new Promise((r) => setTimeout(r, 25));
      }
      refusedAfter.push(performance.now() - revokedAt);
    }
    // The cache lifetime is one second; the polling adds up to a request's time on a busy machine.
    assert.ok(
      Math.max(...refusedAfter) < 1000 + stallBoundMs(150, 0.2),
      `refused after ${refusedAfter.map(Math.round)} ms`,
    );
    console.log(
      `several instances: migrations ${applied.length} applied once; 50 duplicate creates → ${created} record; ` +
        `130 requests on a budget of 100 → ${served} served, ${limited} refused; revoked key refused after ` +
        `${refusedAfter.map((ms) => Math.round(ms)).join(' / ')} ms`,
    );
  } finally {
    for (const instance of instances) {
      instance.child.kill('SIGTERM');
      if (instance.child.exitCode === null) await new Promise((r) => instance.child.once('exit', r));
    }
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
});
