// Shared pieces of `npm run bench`: start the bare yardstick and Vouch as child processes, drive
// them with autocannon from a third process, and print figures as ratios to the bare server.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../test/free-port.ts';
import { recordLoad } from './results.ts';

/** Webhook secrets are encrypted at rest; PostgreSQL requires the key (one for every bench process). */
export const BENCH_SECRET_KEY = process.env.SECRET_KEY ?? 'b'.repeat(64);

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Server {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
}

async function waitFor(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** A bench server script of its own (`bench/*.mjs`), up once `readyPath` answers. */
async function startScript(
  script: string,
  env: Record<string, string> = {},
  readyPath = '/',
): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}${readyPath}`);
  return { url, process: child, stop: stopper(child) };
}

export function startBare(): Promise<Server> {
  return startScript('bench/bare-server.mjs');
}

/** Fastify and pg alone on the bench's PostgreSQL schema (bench/pg-ceiling-server.mjs). */
export function startPostgresCeiling(databaseUrl: string): Promise<Server> {
  return startScript('bench/pg-ceiling-server.mjs', { DATABASE_URL: databaseUrl }, '/read');
}

/** The arguments of `npm start` after `node` (its V8 flags included), read from package.json. */
const startArguments: string[] = JSON.parse(readFileSync(`${root}package.json`, 'utf8'))
  .scripts.start.split(' ')
  .slice(1);

/** Vouch as `npm start` runs it, with a rate limit high enough not to throttle the load. */
export async function startVouch(options: {
  databaseUrl: string;
  env?: Record<string, string>;
}): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, startArguments, {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      RATE_LIMIT_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'warn',
      SECRET_KEY: BENCH_SECRET_KEY,
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // A loaded machine compiles the app slowly: allow it two minutes to come up.
  await waitFor(`${url}/health`, 120_000);
  return { url, process: child, stop: stopper(child) };
}

/** `vouch <args>` against a database; answers the parsed JSON it prints. */
export async function vouchCli(databaseUrl: string, args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['bin/vouch.js', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, SECRET_KEY: BENCH_SECRET_KEY },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

/** A program with a full-scope key, created through the CLI. */
export async function createProgram(databaseUrl: string, type: 'affiliate' | 'referral' | 'newsletter') {
  const created = await vouchCli(databaseUrl, [
    'programs',
    'create',
    '--name',
    `bench ${type}`,
    '--type',
    type,
    '--website',
    'https://bench.example.com',
  ]);
  return { id: created.program.id as number, token: created.api_key.token as string };
}

/** A fresh PostgreSQL schema for one bench run, or undefined when PostgreSQL is unreachable. */
export async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch {
    return undefined;
  }
  await client.end();
  const schema = `bench_${Date.now()}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

export interface LoadOptions {
  /** One server, or several taken round-robin per connection. */
  url: string | string[];
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** JSON text; `{{n}}` becomes a unique counter per request. */
  body?: string;
  connections?: number;
  duration?: number;
  warmup?: number;
  /** Signs each body as Stripe does, with this webhook secret (bench/load-worker.ts). */
  stripeSecret?: string;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

async function autocannon(
  options: Required<Omit<LoadOptions, 'body' | 'path' | 'warmup' | 'stripeSecret'>> & {
    body?: string;
    stripeSecret?: string;
  },
  path: string,
  duration: number,
) {
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/load-worker.ts',
      JSON.stringify({
        url: Array.isArray(options.url) ? options.url.map((url) => `${url}${path}`) : `${options.url}${path}`,
        method: options.method,
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration,
        stripeSecret: options.stripeSecret,
      }),
    ],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult;
}

/** Warm up, then drive `connections` connections for `duration` seconds from a separate process. */
/** Loads of equal length as one: mean rate and p50, the worst p99. */
export function meanOfLoads(loads: readonly LoadResult[]): LoadResult {
  const sum = (pick: (load: LoadResult) => number) => loads.reduce((total, load) => total + pick(load), 0);
  return {
    rps: sum((load) => load.rps) / loads.length,
    p50: sum((load) => load.p50) / loads.length,
    p99: Math.max(...loads.map((load) => load.p99)),
    errors: sum((load) => load.errors),
    non2xx: sum((load) => load.non2xx),
    total: sum((load) => load.total),
  };
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const full = {
    url: options.url,
    method: options.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(options.body ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    connections: options.connections ?? 50,
    duration: options.duration ?? 10,
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.stripeSecret !== undefined ? { stripeSecret: options.stripeSecret } : {}),
  };
  if ((options.warmup ?? 2) > 0) await autocannon(full, options.path, options.warmup ?? 2);
  return autocannon(full, options.path, full.duration);
}

export interface ReportRow {
  name: string;
  result: LoadResult;
  /** The bare server's result measured in the same run. */
  bare?: LoadResult;
  target?: string;
}

/** Prints a table of loads and records its rows for bench/RESULTS.md. */
export function report(title: string, rows: ReportRow[]): void {
  for (const row of rows) recordLoad(title, row.name, row.result, row.bare?.rps, row.target);
  console.log(`\n${title}`);
  console.log(
    `${'case'.padEnd(44)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'ratio'.padStart(8)}${'non-2xx'.padStart(9)}  target`,
  );
  for (const row of rows) {
    const ratio = row.bare ? (row.result.rps / row.bare.rps).toFixed(2) : '—';
    console.log(
      `${row.name.padEnd(44)}${row.result.rps.toFixed(0).padStart(10)}${String(row.result.p50).padStart(9)}${String(row.result.p99).padStart(9)}${ratio.padStart(8)}${String(row.result.non2xx + row.result.errors).padStart(9)}  ${row.target ?? ''}`,
    );
  }
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU time, in milliseconds, that the processes `pids` have used so far (user and system),
 * read from /proc: Linux only, `undefined` elsewhere. A process that has gone counts as nothing.
 */
export function cpuMillis(pids: readonly number[]): number | undefined {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      if (pid === pids[0]) return undefined;
      continue;
    }
    // The fields after the command name (which may hold spaces): utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** The PostgreSQL backends serving the connections of `applicationName` (Vouch started with PGAPPNAME). */
export async function backendPids(databaseUrl: string, applicationName: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where application_name = $1',
      [applicationName],
    );
    return rows.map((row) => Number(row.pid));
  } finally {
    await client.end();
  }
}
