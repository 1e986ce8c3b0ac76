import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redisReachable, startServer, TEST_REDIS_URL, testDialects } from './harness.ts';
import { itemAt } from './items.ts';

const REDIS_URL = TEST_REDIS_URL;

for (const dialect of testDialects()) {
  test(`each API key has RATE_LIMIT_PER_MINUTE requests a minute, then 429 [${dialect}]`, async () => {
    const server = await startServer({ dialect, env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const program = await server.newProgram('affiliate');
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await server.request('GET', '/v1/program', { token: program.token });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('ratelimit-policy'), '"per-key";q=3;w=60');
        remaining.push(res.headers.get('ratelimit') ?? '');
      }
      assert.deepEqual(
        remaining.map((r) => /r=(\d+)/.exec(r)?.[1]),
        ['2', '1', '0'],
      );
      const limited = await server.request('GET', '/v1/program', { token: program.token });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('content-type'), 'application/json');
      assert.deepEqual(limited.body, { message: 'Too Many Attempts.', errors: {}, status: 0 });
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.match(limited.headers.get('ratelimit') ?? '', /r=0;t=\d+/);

      // Another key of the same program has its own budget; unauthenticated routes have none.
      assert.equal((await server.request('GET', '/v1/program', { token: program.readToken })).status, 200);
      assert.equal((await server.request('GET', '/health')).headers.get('ratelimit'), null);
    } finally {
      await server.close();
    }
  });

  test(`RATE_LIMIT_PER_MINUTE=0 turns rate limiting off [${dialect}]`, async () => {
    const server = await startServer({ dialect, env: { RATE_LIMIT_PER_MINUTE: '0' } });
    try {
      const program = await server.newProgram('referral');
      for (let i = 0; i < 5; i++) {
        const res = await server.request('GET', '/v1/program', { token: program.token });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('ratelimit'), null);
      }
    } finally {
      await server.close();
    }
  });
}

test('with REDIS_URL, instances share one budget per key', async (t) => {
  if (!(await redisReachable())) {
    if (process.env.CI) assert.fail(`Redis at ${REDIS_URL} is unreachable`);
    t.skip('Redis unreachable');
    return;
  }
  const dialect = testDialects().includes('postgres') ? 'postgres' : 'sqlite';
  const first = await startServer({ dialect, env: { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL } });
  // SQLite in memory cannot be shared; on SQLite the second instance gets its own copy of the key.
  const second =
    dialect === 'postgres'
      ? await startServer({
          dialect,
          env: { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL },
          database: { url: first.databaseUrl },
        })
      : undefined;
  try {
    const program = await first.newProgram('affiliate');
    const instances = second ? [first, second] : [first];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const instance = itemAt(instances, i % instances.length);
      statuses.push((await instance.request('GET', '/v1/program', { token: program.token })).status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
  } finally {
    await second?.app.close();
    await second?.deps.database.close();
    await first.close();
  }
});
