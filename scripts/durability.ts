// `npm run durability`: kill -9 under load, on SQLite and PostgreSQL. Each round starts the
// compiled server (dist/), runs DURABILITY_WRITERS (32) concurrent writers creating refer-a-friend
// customers, kills the process with SIGKILL at a random moment, and restarts it for the next round
// (DURABILITY_ROUNDS, 5). Then it checks that every acknowledged write is present, that the
// program's counter equals a recount, SQLite's integrity_check, and that the webhook receiver got
// a `customer.created` for every acknowledged customer. Prints its figures; exits 1 on a loss.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { randomAlphanumeric } from '../src/core/ids.ts';
import { SqliteDatabase as Database } from '../src/db/sqlite-driver.ts';
import { freePort } from '../test/free-port.ts';
import { buildIfStale } from './build-if-stale.mjs';

const ROUNDS = Number(process.env.DURABILITY_ROUNDS ?? 5);
const WRITERS = Number(process.env.DURABILITY_WRITERS ?? 32);
const ADMIN_TOKEN = 'durability-admin-token-0123456789';
const SECRET_KEY = '5a'.repeat(32);
const POSTGRES = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const root = new URL('..', import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, read by field.
type Answer = { status: number; body: any };

async function call(
  port: number,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

function start(port: number, databaseUrl: string): ChildProcess {
  return spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      SECRET_KEY,
      WORKER: 'on',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(port: number, child: ChildProcess) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await sleep(100);
  }
  throw new Error('the server did not come up');
}

async function run(dialect: 'sqlite' | 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-durability-'));
  const schema = `durability_${randomAlphanumeric(6).toLowerCase()}`;
  const databaseUrl =
    dialect === 'sqlite'
      ? `sqlite:${join(dir, 'vouch.db')}`
      : (() => {
          const url = new URL(POSTGRES);
          url.searchParams.set('schema', schema);
          return url.toString();
        })();
  const port = await freePort();
  const delivered = new Set<string>();
  const receiver = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      try {
        const event = JSON.parse(text);
        if (event.event === 'customer.created') delivered.add(String(event.data.id));
      } catch {}
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as { port: number }).port;

  const acknowledged = new Set<string>();
  let attempted = 0;
  let token = '';
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const child = start(port, databaseUrl);
      await ready(port, child);
      if (round === 1) {
        const program = await call(port, 'POST', '/admin/v1/programs', ADMIN_TOKEN, {
          name: 'Durability',
          type: 'referral',
          website: 'https://shop.example.com',
        });
        const key = await call(
          port,
          'POST',
          `/admin/v1/programs/${program.body.data.id}/api-keys`,
          ADMIN_TOKEN,
          {
            name: 'writers',
          },
        );
        token = key.body.data.token;
        const hook = await call(port, 'POST', '/v1/webhooks', token, {
          name: 'receiver',
          url: `http://127.0.0.1:${receiverPort}/hook`,
          events: ['customer.created'],
        });
        if (hook.status !== 200) throw new Error(`webhook: ${JSON.stringify(hook.body)}`);
      }
      let killed = false;
      const writer = async () => {
        while (!killed) {
          const key = randomAlphanumeric(12);
          attempted++;
          try {
            const reply = await call(port, 'POST', '/v1/customers', token, {
              key,
              email: `${key}@example.com`,
            });
            if (reply.status === 201 || reply.status === 200) acknowledged.add(String(reply.body.data.id));
          } catch {
            // The connection died with the process: not acknowledged.
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, writer);
      await sleep(1000 + Math.random() * 2000);
      child.kill('SIGKILL');
      killed = true;
      await new Promise((resolve) => child.once('exit', resolve));
      await Promise.all(writers);
      console.log(
        `durability [${dialect}] round ${round}: killed with ${acknowledged.size} writes acknowledged so far`,
      );
    }

    // The last start: everything acknowledged must be there, and every event delivered.
    const child = start(port, databaseUrl);
    await ready(port, child);
    try {
      const lost: string[] = [];
      for (const id of acknowledged) {
        const reply = await call(port, 'GET', `/v1/customers/${id}`, token);
        if (reply.status !== 200) lost.push(id);
      }
      const overview = await call(port, 'GET', '/v1/program', token);
      const counted = Number(overview.body.data.total_customers);
      let recount: number;
      let integrity = 'n/a';
      if (dialect === 'sqlite') {
        const db = new Database(join(dir, 'vouch.db'), { readonly: true });
        recount = (db.prepare('select count(*) as n from customers').get() as { n: number }).n;
        integrity = String((db.pragma('integrity_check', { simple: true }) as string) ?? '');
        db.close();
      } else {
        const client = new pg.Client({ connectionString: POSTGRES });
        await client.connect();
        recount = Number((await client.query(`select count(*) as n from ${schema}.customers`)).rows[0].n);
        await client.end();
      }
      // Deliveries claimed by a killed process are retried once their lease ends (60 s).
      const deadline = Date.now() + Number(process.env.DURABILITY_DELIVERY_WAIT_MS ?? 150_000);
      while (Date.now() < deadline && [...acknowledged].some((id) => !delivered.has(id))) await sleep(500);
      const undelivered = [...acknowledged].filter((id) => !delivered.has(id));
      console.log(
        `durability [${dialect}]: ${ROUNDS} kill -9 rounds, ${WRITERS} writers, ${attempted} writes tried, ` +
          `${acknowledged.size} acknowledged, ${lost.length} lost; counter ${counted} vs recount ${recount}; ` +
          `integrity_check ${integrity}; ${acknowledged.size - undelivered.length} of ${acknowledged.size} events delivered`,
      );
      return lost.length === 0 && counted === recount && undelivered.length === 0 && integrity !== 'failed'
        ? integrity === 'n/a' || integrity === 'ok'
        : false;
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  } finally {
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
    if (dialect === 'postgres') {
      const client = new pg.Client({ connectionString: POSTGRES });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
  }
}

await buildIfStale();
const dialects = (process.env.VOUCH_TEST_DIALECTS ?? 'sqlite,postgres').split(',') as (
  | 'sqlite'
  | 'postgres'
)[];
let ok = true;
for (const dialect of dialects) ok = (await run(dialect)) && ok;
process.exit(ok ? 0 : 1);
