import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  startServer,
  startupBudgetMs,
  type TestServer,
  testDialects,
  useCompiledBuild,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { type Clock, nowTimestamp, systemClock } from '../../core/time.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { createWorker } from '../../worker.ts';
import { startReceiver } from './webhooks.test-receiver.ts';

/** The system clock, moved forward by hand: the killed worker's lease runs out without waiting. */
class ShiftedClock implements Clock {
  shiftMs = 0;
  nowMicros() {
    return systemClock.nowMicros() + this.shiftMs * 1000;
  }
}

const root = join(import.meta.dirname, '../../..');

// `vouch worker` runs from the compiled build (bin/vouch.js prefers dist/).
before(useCompiledBuild);

for (const dialect of testDialects()) {
  describe(`webhook delivery survives kill -9 of the worker process [${dialect}]`, () => {
    const clock = new ShiftedClock();
    let server: TestServer & { databaseUrl: string };
    let dir: string | undefined;
    before(async () => {
      if (dialect === 'sqlite') {
        // A file both processes can open.
        dir = mkdtempSync(join(tmpdir(), 'vouch-crash-'));
        server = await startServer({ dialect, clock, database: { url: `sqlite:${join(dir, 'vouch.db')}` } });
      } else {
        server = await startServer({ dialect, clock });
      }
    });
    after(async () => {
      await server.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test('a delivery in flight when `vouch worker` is killed is sent after restart', async () => {
      // The first request never gets an answer: the worker is mid-delivery when it dies.
      const receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200));
      const p = await server.newProgram('affiliate');
      const created = await server.request('POST', '/v1/webhooks', {
        token: p.token,
        body: { name: 'crash', url: receiver.url, events: ['partner.created'] },
      });
      assert.equal(created.status, 200, created.text);
      await recordEvent(server.deps.database.db, p.id, 'partner.created', { id: 'x' }, nowTimestamp(clock));

      const child = spawn(process.execPath, ['bin/vouch.js', 'worker'], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: server.databaseUrl, WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
        stdio: 'ignore',
      });
      const worker = createWorker(server.deps, { timeoutMs: 10_000 });
      try {
        await receiver.waitFor(1, startupBudgetMs());
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;

        assert.equal((await worker.runOnce()).attempted, 0, 'the dead worker’s claim is leased');
        clock.shiftMs = 61_000;
        assert.equal((await worker.runOnce()).attempted, 1);
        assert.equal(receiver.received.length, 2);
        assert.equal(
          itemAt(receiver.received, 1).headers['webhook-id'],
          itemAt(receiver.received).headers['webhook-id'],
        );
        const log = await server.request('GET', `/v1/webhooks/${created.body.data.key}/deliveries`, {
          token: p.token,
        });
        assert.deepEqual(
          log.body.data.map((a: { status: string; attempt: number }) => [a.attempt, a.status]),
          [[1, 'succeeded']],
        );
      } finally {
        child.kill('SIGKILL');
        worker.close();
        await receiver.close();
      }
    });
  });
}
