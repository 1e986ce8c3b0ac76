// Webhook delivery figures: deliveries per second from one worker process to a loopback
// receiver (SQLite, and PostgreSQL when reachable), and the time from `POST /v1/transactions`
// to the receiver's arrival on an idle Vouch. Receivers run in a child process of their own.
// Run: `node --import tsx bench/webhooks.bench.ts` (BENCH_DELIVERIES sets the batch size).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { newKey } from '../src/core/ids.ts';
import { nowTimestamp, systemClock } from '../src/core/time.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateOrThrow } from '../src/db/migrate.ts';
import { assembleDeps, closeDeps } from '../src/deps.ts';
import { createProgram } from '../src/modules/program/program.service.ts';
import '../src/modules/webhooks/webhooks.tables.ts';
import { present } from '../src/core/present.ts';
import { recordEvent } from '../src/outbox/outbox.ts';
import { startWorker } from '../src/worker.ts';
import {
  BENCH_SECRET_KEY,
  createProgram as createProgramViaCli,
  postgresDatabase,
  startVouch,
} from './lib.ts';
import { recordFigure } from './results.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const now = () => performance.timeOrigin + performance.now();

// Answers 200 and prints `<data.key or webhook-id> <arrival ms>` per delivery.
const RECEIVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    let id = req.headers['webhook-id'];
    try { id = JSON.parse(Buffer.concat(chunks).toString()).data.key ?? id; } catch {}
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    process.stdout.write(id + ' ' + at + '\\n');
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

async function startReceiver() {
  const child: ChildProcess = spawn(process.execPath, ['-e', RECEIVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const arrivals = new Map<string, number>();
  let count = 0;
  let onPort: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => {
    onPort = resolve;
  });
  createInterface({ input: present(child.stdout, "the receiver's output") }).on('line', (line) => {
    const [id = '', at] = line.split(' ');
    if (id === 'port') return onPort(Number(at));
    arrivals.set(id, Number(at));
    count++;
  });
  const url = `http://127.0.0.1:${await port}/hook`;
  return {
    url,
    arrivals,
    count: () => count,
    async waitFor(n: number, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (count < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      return count >= n;
    },
    stop: () => child.kill('SIGTERM'),
  };
}

async function throughput(name: string, databaseUrl: string) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    LOG_LEVEL: 'warn',
    SECRET_KEY: BENCH_SECRET_KEY,
  });
  const database = await openDatabase(databaseUrl, { poolSize: 8 });
  await migrateOrThrow(database);
  const deps = assembleDeps({ database, clock: systemClock, log: pino({ level: 'warn' }), config });
  const receiver = await startReceiver();
  const program = await createProgram(deps, { name: 'bench', type: 'affiliate' });
  const at = nowTimestamp(systemClock);
  await database.db
    .insertInto('webhooks')
    .values({
      program_id: program.id,
      key: newKey(),
      name: 'bench',
      url: receiver.url,
      is_active: true,
      signature: 'benchsignaturebenchsignature',
      events: JSON.stringify(['transaction.created']),
      created_at: at,
      updated_at: at,
    })
    .execute();
  for (let i = 0; i < DELIVERIES; i += 1000) {
    await database.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(DELIVERIES, i + 1000); j++) {
        await recordEvent(trx, program.id, 'transaction.created', { key: `t${j}`, amount: 10 }, at);
      }
    });
  }
  const started = now();
  const worker = await startWorker(deps);
  const done = await receiver.waitFor(DELIVERIES, 120_000);
  const seconds = (now() - started) / 1000;
  await worker.stop();
  receiver.stop();
  closeDeps(deps);
  await database.close();
  const rate = receiver.count() / seconds;
  console.log(
    `${`deliveries/s, one worker (${name})`.padEnd(48)}${rate.toFixed(0).padStart(8)}  ` +
      `${receiver.count()} in ${seconds.toFixed(2)} s${done ? '' : ' (timed out)'}  target ≥ 1,000/s`,
  );
  recordFigure(
    'Webhooks',
    `deliveries, one worker (${name})`,
    `${rate.toFixed(0)}/s${done ? '' : ' (timed out)'}`,
    '≥ 1,000/s',
  );
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function latency(name: string, databaseUrl: string) {
  const receiver = await startReceiver();
  const program = await createProgramViaCli(databaseUrl, 'affiliate');
  const vouch = await startVouch({ databaseUrl, env: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
  const headers = { authorization: `Bearer ${program.token}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${vouch.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const partner = newKey();
  const made = await post('/v1/partners', { email: `${partner.toLowerCase()}@example.com`, key: partner });
  if (made.status !== 201) throw new Error(`partner: ${await made.text()}`);
  const hook = await post('/v1/webhooks', {
    name: 'bench',
    url: receiver.url,
    events: ['transaction.created'],
  });
  if (hook.status !== 200) throw new Error(`webhook: ${await hook.text()}`);

  const samples: number[] = [];
  const rounds = Number(process.env.BENCH_LATENCY_ROUNDS ?? 200);
  for (let i = 0; i < rounds; i++) {
    const key = newKey();
    const sent = now();
    const res = await post('/v1/transactions', {
      key,
      amount: 100,
      action: 'sale',
      customer: { key: newKey(), partner: { key: partner } },
      options: { create_customer: true },
    });
    if (res.status !== 200) throw new Error(`transaction: ${res.status} ${await res.text()}`);
    await receiver.waitFor(i + 1, 10_000);
    const arrived = receiver.arrivals.get(key);
    if (arrived !== undefined) samples.push(arrived - sent);
    // Idle between transactions: the figure is for a quiet server.
    await new Promise((r) => setTimeout(r, 20));
  }
  await vouch.stop();
  receiver.stop();
  samples.sort((a, b) => a - b);
  console.log(
    `${`POST /v1/transactions → arrival (${name})`.padEnd(48)}p50 ${percentile(samples, 50).toFixed(0)} ms, ` +
      `p99 ${percentile(samples, 99).toFixed(0)} ms, max ${(samples.at(-1) ?? NaN).toFixed(0)} ms ` +
      `(${samples.length}/${rounds} arrived)  target p99 ≤ 1,000 ms`,
  );
  recordFigure(
    'Webhooks',
    `POST /v1/transactions → receiver, idle (${name})`,
    `p50 ${percentile(samples, 50).toFixed(0)} ms, p99 ${percentile(samples, 99).toFixed(0)} ms`,
    'p99 ≤ 1,000 ms',
  );
}

const dir = mkdtempSync(join(tmpdir(), 'vouch-webhooks-bench-'));
console.log(`\nWebhooks (${DELIVERIES} deliveries; receiver in its own process)`);
try {
  await throughput('SQLite', `sqlite:${join(dir, 'throughput.db')}`);
  const pg = await postgresDatabase();
  if (pg) {
    await throughput('PostgreSQL', pg.url);
    await pg.drop();
  }
  await latency('SQLite', `sqlite:${join(dir, 'latency.db')}`);
  const pg2 = await postgresDatabase();
  if (pg2) {
    await latency('PostgreSQL', pg2.url);
    await pg2.drop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
