import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import {
  describeEachDatabase,
  ManualClock,
  startServer,
  type TestServer,
  testDialects,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import type { EventName } from '../../core/events.ts';
import { nowTimestamp } from '../../core/time.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { createWorker, startWorker } from '../../worker.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './webhooks.schedule.ts';
import { standardWebhooksSecret } from './webhooks.signing.ts';
import { startReceiver } from './webhooks.test-receiver.ts';

type Server = () => TestServer;

async function createHook(
  server: Server,
  token: string,
  url: string,
  events: string[] = ['partner.created'],
) {
  const reply = await server().request('POST', '/v1/webhooks', {
    token,
    body: { name: 'hook', url, events },
  });
  assert.equal(reply.status, 200, reply.text);
  const { signature, ...hook } = reply.body.data;
  assert.ok(signature, 'a full-scope key sees the signing secret');
  return { ...hook, signature };
}

async function emit(server: Server, programId: number, event: EventName, payload: unknown) {
  await recordEvent(server().deps.database.db, programId, event, payload, nowTimestamp(server().deps.clock));
}

async function attempts(server: Server, token: string, key: string) {
  const reply = await server().request('GET', `/v1/webhooks/${key}/deliveries?sort=asc&limit=100`, { token });
  assert.equal(reply.status, 200, reply.text);
  return reply.body.data;
}

const hmacHex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

describeEachDatabase('webhook delivery', (server) => {
  test('an event reaches each subscribed active webhook of its program, signed both ways', async () => {
    const receiver = await startReceiver(200);
    const worker = createWorker(server().deps, { timeoutMs: 10_000 });
    try {
      const p = await server().newProgram('affiliate');
      const other = await server().newProgram('affiliate');
      const hook = await createHook(server, p.token, receiver.url, ['partner.created']);
      await createHook(server, p.token, receiver.url, ['customer.created']);
      const inactive = await createHook(server, p.token, receiver.url, ['partner.created']);
      await server().request('PUT', `/v1/webhooks/${inactive.key}`, {
        token: p.token,
        body: { is_active: false },
      });
      await createHook(server, other.token, receiver.url, ['partner.created']);

      const partner = { id: 'abc123DEF456', email: 'ann@example.com', name: 'Ann', amount: 29.997 };
      await emit(server, p.id, 'partner.created', partner);
      await emit(server, p.id, 'partner.updated', partner);
      const result = await worker.runOnce();
      assert.equal(result.attempted, 1);
      assert.equal(receiver.received.length, 1);

      const { headers, body } = itemAt(receiver.received);
      const parsed = JSON.parse(body);
      assert.deepEqual(Object.keys(parsed), ['event', 'url', 'webhook_key', 'created_at', 'data']);
      assert.equal(parsed.event, 'partner.created');
      assert.equal(parsed.url, receiver.url);
      assert.equal(parsed.webhook_key, hook.key);
      assert.match(parsed.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.deepEqual(parsed.data, partner);
      assert.equal(headers['content-type'], 'application/json');
      assert.equal(headers.signature, hmacHex(hook.signature, body));
      assert.match(String(headers['webhook-id']), /^msg_[A-Za-z0-9]{24}$/);
      const verified = new StandardWebhook(standardWebhooksSecret(hook.signature)).verify(
        body,
        headers as Record<string, string>,
      );
      assert.deepEqual(verified, parsed);
      assert.throws(() =>
        new StandardWebhook(standardWebhooksSecret(hook.signature)).verify(
          `${body} `,
          headers as Record<string, string>,
        ),
      );

      const log = await attempts(server, p.token, hook.key);
      assert.equal(log.length, 1);
      assert.equal(itemAt(log).status, 'succeeded');
      assert.equal(itemAt(log).response_code, 200);
      assert.equal(itemAt(log).delivery_id, headers['webhook-id']);
      assert.equal(itemAt(log).next_attempt_at, null);
      assert.equal((await worker.runOnce()).attempted, 0, 'delivered once');
    } finally {
      worker.close();
      await receiver.close();
    }
  });

  test('events written while the program has no active webhook are never sent; later ones are', async () => {
    const receiver = await startReceiver(200);
    const worker = createWorker(server().deps, { timeoutMs: 10_000 });
    try {
      const p = await server().newProgram('affiliate');
      const partner = { id: 'abc123DEF456', email: 'ann@example.com' };
      await emit(server, p.id, 'partner.created', { ...partner, name: 'before any webhook' });
      const hook = await createHook(server, p.token, receiver.url, ['partner.created']);
      await server().request('PUT', `/v1/webhooks/${hook.key}`, {
        token: p.token,
        body: { is_active: false },
      });
      await emit(server, p.id, 'partner.created', { ...partner, name: 'while inactive' });
      await server().request('PUT', `/v1/webhooks/${hook.key}`, {
        token: p.token,
        body: { is_active: true },
      });
      await emit(server, p.id, 'partner.created', { ...partner, name: 'while active' });
      await worker.runOnce();
      assert.deepEqual(
        receiver.received.map(({ body }) => JSON.parse(body).data.name),
        ['while active'],
      );
      // Only the event written while a webhook was active is stored at all.
      const rows = await server()
        .deps.database.db.selectFrom('events')
        .select(['payload', 'dispatched_at'])
        .where('program_id', '=', p.id)
        .execute();
      assert.deepEqual(
        rows.map((row) => JSON.parse(row.payload).name),
        ['while active'],
      );
      assert.notEqual(itemAt(rows).dispatched_at, null, 'dispatched by the worker');
    } finally {
      worker.close();
      await receiver.close();
    }
  });

  test('POST /test sends a sample now; retry re-sends a delivery with the same webhook-id', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 503 : 200));
    try {
      const p = await server().newProgram('referral');
      const hook = await createHook(server, p.token, receiver.url, ['transaction.created']);
      await server().request('PUT', `/v1/webhooks/${hook.key}`, {
        token: p.token,
        body: { is_active: false },
      });
      const sent = await server().request('POST', `/v1/webhooks/${hook.key}/test`, { token: p.token });
      assert.equal(sent.status, 200, sent.text);
      const attempt = sent.body.data;
      assert.equal(attempt.status, 'failed');
      assert.equal(attempt.response_code, 503);
      assert.equal(attempt.test, true);
      assert.equal(attempt.event, 'transaction.created');
      assert.equal(attempt.next_attempt_at, null, 'test deliveries are not retried on their own');
      assert.equal(JSON.parse(itemAt(receiver.received).body).data.sample, true);

      const retried = await server().request(
        'POST',
        `/v1/webhooks/${hook.key}/deliveries/${attempt.delivery_id}/retry`,
        {
          token: p.token,
        },
      );
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.body.data.status, 'succeeded');
      assert.equal(retried.body.data.attempt, 2);
      assert.equal(receiver.received.length, 2);
      assert.equal(
        itemAt(receiver.received, 1).headers['webhook-id'],
        itemAt(receiver.received).headers['webhook-id'],
      );
      assert.equal(itemAt(receiver.received, 1).body, itemAt(receiver.received).body);

      const unknown = await server().request('POST', `/v1/webhooks/${hook.key}/deliveries/msg_nope/retry`, {
        token: p.token,
      });
      assert.equal(unknown.status, 404);
      const log = await attempts(server, p.token, hook.key);
      assert.deepEqual(
        log.map((a) => [a.attempt, a.status]),
        [
          [1, 'failed'],
          [2, 'succeeded'],
        ],
      );
    } finally {
      await receiver.close();
    }
  });

  test('a partner created through the API is delivered as the API returned it', async () => {
    const receiver = await startReceiver(200);
    const worker = createWorker(server().deps, { timeoutMs: 10_000 });
    try {
      const p = await server().newProgram('affiliate');
      await createHook(server, p.token, receiver.url, ['partner.created']);
      const made = await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'flow@example.com', name: 'Flow' },
      });
      assert.equal(made.status, 201, made.text);
      await worker.runOnce();
      assert.equal(receiver.received.length, 1);
      const delivered = JSON.parse(itemAt(receiver.received).body);
      assert.equal(delivered.event, 'partner.created');
      assert.deepEqual(delivered.data, made.body.data);
    } finally {
      worker.close();
      await receiver.close();
    }
  });

  test('the running worker loop delivers new events by itself and stops cleanly', async () => {
    const receiver = await startReceiver(200);
    const running = await startWorker(server().deps, { timeoutMs: 10_000, idleMs: 10, concurrency: 4 });
    try {
      const p = await server().newProgram('affiliate');
      await createHook(server, p.token, receiver.url);
      for (let i = 0; i < 10; i++) await emit(server, p.id, 'partner.created', { id: `p${i}` });
      await receiver.waitFor(10);
      assert.equal(new Set(receiver.received.map((r) => JSON.parse(r.body).data.id)).size, 10);
    } finally {
      await running.stop();
      await receiver.close();
    }
  });

  test('a receiver that hangs times out and the delivery is retried', async () => {
    const receiver = await startReceiver('hang');
    const worker = createWorker(server().deps, { timeoutMs: 150 });
    try {
      const p = await server().newProgram('affiliate');
      const hook = await createHook(server, p.token, receiver.url);
      await emit(server, p.id, 'partner.created', { id: 'x' });
      await worker.runOnce();
      const [first] = await attempts(server, p.token, hook.key);
      assert.ok(first, 'the hung delivery is logged');
      assert.equal(first.status, 'failed');
      assert.equal(first.response_code, null);
      assert.match(first.error ?? '', /timeout/);
      assert.ok(first.next_attempt_at);
    } finally {
      worker.close();
      await receiver.close();
    }
  });
});

describeEachDatabase(
  'webhook delivery: SSRF guard with no allowed ranges',
  (server) => {
    test('names resolving to loopback, mapped and literal loopback addresses are refused, recorded, not retried', async () => {
      const receiver = await startReceiver(200);
      const worker = createWorker(server().deps, { timeoutMs: 10_000 });
      try {
        const p = await server().newProgram('affiliate');
        const refused = await server().request('POST', '/v1/webhooks', {
          token: p.token,
          body: { name: 'x', url: receiver.url, events: ['partner.created'] },
        });
        assert.equal(refused.status, 422);
        const byName = await createHook(server, p.token, `http://localhost:${receiver.port}/hook`);
        // Created while a range was allowed, say: the send-time check still refuses it.
        const db = server().deps.database.db;
        const now = nowTimestamp(server().deps.clock);
        for (const url of [
          receiver.url,
          `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
          `http://2130706433:${receiver.port}/`,
        ]) {
          await db
            .insertInto('webhooks')
            .values({
              program_id: p.id,
              key: `raw${Math.random().toString(36).slice(2, 10)}`,
              name: 'raw',
              url,
              is_active: true,
              signature: 'secretsecretsecret',
              events: JSON.stringify(['partner.created']),
              created_at: now,
              updated_at: now,
            })
            .execute();
        }
        await emit(server, p.id, 'partner.created', { id: 'x' });
        const result = await worker.runOnce();
        assert.equal(result.attempted, 4);
        assert.equal(receiver.received.length, 0, 'nothing reached the loopback receiver');
        const [attempt] = await attempts(server, p.token, byName.key);
        assert.ok(attempt, 'the blocked delivery is logged');
        assert.equal(attempt.status, 'failed');
        assert.match(attempt.error ?? '', /^blocked: /);
        assert.equal(attempt.next_attempt_at, null);
        const rows = await db
          .selectFrom('webhook_deliveries')
          .select(['status', 'last_error'])
          .where('program_id', '=', p.id)
          .execute();
        assert.deepEqual(
          rows.map((r) => r.status),
          ['failed', 'failed', 'failed', 'failed'],
        );
        for (const row of rows) assert.match(row.last_error ?? '', /blocked: .* is not a public address/);
      } finally {
        worker.close();
        await receiver.close();
      }
    });
  },
  { env: { WEBHOOK_ALLOW_CIDRS: '' } },
);

const clock = new ManualClock();
describeEachDatabase(
  'webhook delivery: retry schedule on a manual clock',
  (server) => {
    test('5xx, 429 and 3xx are retried at the schedule with the same webhook-id, until success', async () => {
      const answers = [500, 429, 301, 200];
      const receiver = await startReceiver((n) => answers[n - 1] ?? 200);
      const worker = createWorker(server().deps, { timeoutMs: 10_000, random: () => 0 });
      try {
        const p = await server().newProgram('affiliate');
        const hook = await createHook(server, p.token, receiver.url);
        await emit(server, p.id, 'partner.created', { id: 'x' });
        assert.equal((await worker.runOnce()).attempted, 1);
        for (const [i, delay] of RETRY_DELAYS_MS.slice(0, 3).entries()) {
          clock.advance(delay - 1);
          assert.equal((await worker.runOnce()).attempted, 0, `not before ${delay} ms`);
          clock.advance(1);
          assert.equal((await worker.runOnce()).attempted, 1, `attempt ${i + 2}`);
        }
        assert.equal(receiver.received.length, 4);
        assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1);
        assert.equal(new Set(receiver.received.map((r) => r.body)).size, 1);
        const log = await attempts(server, p.token, hook.key);
        assert.deepEqual(
          log.map((a) => [a.attempt, a.status, a.response_code]),
          [
            [1, 'failed', 500],
            [2, 'failed', 429],
            [3, 'failed', 301],
            [4, 'succeeded', 200],
          ],
        );
        clock.advance(48 * 3_600_000);
        assert.equal((await worker.runOnce()).attempted, 0);
      } finally {
        worker.close();
        await receiver.close();
      }
    });

    test('the schedule gives up after the last retry, about three days later', async () => {
      const receiver = await startReceiver(503);
      const worker = createWorker(server().deps, { timeoutMs: 10_000, random: () => 1 });
      try {
        const p = await server().newProgram('affiliate');
        const hook = await createHook(server, p.token, receiver.url);
        const start = clock.nowMicros();
        await emit(server, p.id, 'partner.created', { id: 'x' });
        await worker.runOnce();
        for (const delay of RETRY_DELAYS_MS) {
          clock.advance(delay * 1.1);
          assert.equal((await worker.runOnce()).attempted, 1);
        }
        const log = await attempts(server, p.token, hook.key);
        assert.equal(log.length, MAX_ATTEMPTS);
        assert.equal(itemAt(log, MAX_ATTEMPTS - 1).next_attempt_at, null);
        assert.ok(log.slice(0, -1).every((a) => a.next_attempt_at !== null));
        const days = (clock.nowMicros() - start) / 86_400e6;
        assert.ok(days > 3 && days < 3.6, `${days} days`);
        clock.advance(7 * 86_400_000);
        assert.equal((await worker.runOnce()).attempted, 0);
        assert.equal(receiver.received.length, MAX_ATTEMPTS);
      } finally {
        worker.close();
        await receiver.close();
      }
    });

    test('410 turns the webhook off; other 4xx are final; refused connections are retried', async () => {
      const gone = await startReceiver(410);
      const missing = await startReceiver(404);
      const worker = createWorker(server().deps, { timeoutMs: 10_000 });
      try {
        const p = await server().newProgram('affiliate');
        const goneHook = await createHook(server, p.token, gone.url);
        const missingHook = await createHook(server, p.token, missing.url);
        const closed = await startReceiver(200);
        const closedHook = await createHook(server, p.token, closed.url);
        await closed.close();
        await emit(server, p.id, 'partner.created', { id: 'x' });
        assert.equal((await worker.runOnce()).attempted, 3);

        const fetched = await server().request('GET', `/v1/webhooks/${goneHook.key}`, { token: p.token });
        assert.equal(fetched.body.data.is_active, false);
        const [missed] = await attempts(server, p.token, missingHook.key);
        assert.ok(missed, 'the 404 delivery is logged');
        assert.deepEqual(
          [missed.status, missed.response_code, missed.next_attempt_at],
          ['failed', 404, null],
        );
        const [refused] = await attempts(server, p.token, closedHook.key);
        assert.ok(refused, 'the refused delivery is logged');
        assert.equal(refused.response_code, null);
        assert.match(refused.error ?? '', /ECONNREFUSED/);
        assert.ok(refused.next_attempt_at);

        await emit(server, p.id, 'partner.created', { id: 'y' });
        clock.advance(3_600_000);
        await worker.runOnce();
        assert.equal(gone.received.length, 1, 'the webhook that answered 410 gets nothing more');
        assert.equal(missing.received.length, 2, 'a 404 does not turn the webhook off');
      } finally {
        worker.close();
        await gone.close();
        await missing.close();
      }
    });

    test('a claim left by a killed worker is sent after its lease runs out, once', async () => {
      const receiver = await startReceiver(200);
      const crashed = createWorker(server().deps, { timeoutMs: 10_000 });
      const restarted = createWorker(server().deps, { timeoutMs: 10_000 });
      try {
        const p = await server().newProgram('affiliate');
        await createHook(server, p.token, receiver.url);
        await emit(server, p.id, 'partner.created', { id: 'x' });
        await crashed.webhooks.dispatchEvents();
        // Earlier tests of this suite may have deliveries due too: the claim takes them all.
        assert.ok((await crashed.webhooks.claimDue(100)).length >= 1);
        // …and the process dies here, before sending or recording anything.
        await restarted.runOnce();
        assert.equal(receiver.received.length, 0, 'the claim is still leased');
        clock.advance(61_000);
        await restarted.runOnce();
        await restarted.runOnce();
        assert.equal(receiver.received.length, 1);
      } finally {
        crashed.close();
        restarted.close();
        await receiver.close();
      }
    });

    test('deliveries of a webhook turned off before sending are cancelled; deleted ones vanish', async () => {
      const receiver = await startReceiver(200);
      const worker = createWorker(server().deps, { timeoutMs: 10_000 });
      try {
        const p = await server().newProgram('affiliate');
        const off = await createHook(server, p.token, receiver.url);
        const deleted = await createHook(server, p.token, receiver.url);
        await emit(server, p.id, 'partner.created', { id: 'x' });
        await worker.webhooks.dispatchEvents();
        await server().request('PUT', `/v1/webhooks/${off.key}`, {
          token: p.token,
          body: { is_active: false },
        });
        await server().request('DELETE', `/v1/webhooks/${deleted.key}`, { token: p.token });
        await worker.runOnce();
        assert.equal(receiver.received.length, 0);
        const rows = await server()
          .deps.database.db.selectFrom('webhook_deliveries')
          .select('status')
          .where('program_id', '=', p.id)
          .execute();
        assert.deepEqual(
          rows.map((r) => r.status),
          ['cancelled'],
        );
      } finally {
        worker.close();
        await receiver.close();
      }
    });
  },
  { clock },
);

// Several instances against one PostgreSQL: each delivery is claimed by one worker only.
for (const dialect of testDialects().filter((d) => d === 'postgres')) {
  describe('webhook delivery: concurrent workers [postgres]', () => {
    let first: Awaited<ReturnType<typeof startServer>>;
    let second: Awaited<ReturnType<typeof startServer>>;
    before(async () => {
      first = await startServer({ dialect });
      second = await startServer({ dialect, database: { url: first.databaseUrl } });
    });
    after(async () => {
      await second.close();
      await first.close();
    });

    test('three workers on two instances send every delivery exactly once', async () => {
      const receiver = await startReceiver(200);
      const workers = [
        createWorker(first.deps, { timeoutMs: 5000, dispatchBatch: 20 }),
        createWorker(second.deps, { timeoutMs: 5000, dispatchBatch: 20 }),
        createWorker(second.deps, { timeoutMs: 5000, dispatchBatch: 20 }),
      ];
      try {
        const p = await first.newProgram('affiliate');
        await createHook(() => first, p.token, receiver.url, ['partner.created', 'partner.updated']);
        await createHook(() => first, p.token, receiver.url, ['partner.created']);
        for (let i = 0; i < 150; i++) {
          const event = i % 2 ? 'partner.created' : 'partner.updated';
          await recordEvent(first.deps.database.db, p.id, event, { i }, nowTimestamp(first.deps.clock));
        }
        const expected = 75 * 2 + 75;
        for (let round = 0; round < 10 && receiver.received.length < expected; round++) {
          await Promise.all(workers.map((w) => w.webhooks.runOnce(40)));
        }
        assert.equal(receiver.received.length, expected);
        assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, expected);
      } finally {
        for (const w of workers) w.close();
        await receiver.close();
      }
    });
  });
}
