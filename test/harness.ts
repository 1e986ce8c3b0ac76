import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import { buildIfStale, waitForBuild } from '../scripts/build-if-stale.mjs';
import { buildApp } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import type { Deps } from '../src/context.ts';
import { randomAlphanumeric } from '../src/core/ids.ts';
import { present } from '../src/core/present.ts';
import type { ProgramType } from '../src/core/program-types.ts';
import { type Clock, systemClock } from '../src/core/time.ts';
import { type Database, type Dialect, type FailedQuery, openDatabase } from '../src/db/database.ts';
import { migrateOrThrow } from '../src/db/migrate.ts';
import { assembleDeps } from '../src/deps.ts';
import type { AnswerOf, ErrorBody, JsonObject, ProgramKey } from './api-types.ts';
import { httpRequest } from './http-client.ts';

export type { AnswerOf, DataOf, ErrorBody, JsonObject, Page, ProgramKey, Schema } from './api-types.ts';
export { dataOf } from './api-types.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** The server key of every test server, and of the Vouch processes tests spawn (they inherit it). */
export const TEST_SECRET_KEY = '0f'.repeat(32);
process.env.SECRET_KEY ??= TEST_SECRET_KEY;
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether the test Redis answers (tests that need one skip, or fail under CI, without it). */
export async function redisReachable(url = TEST_REDIS_URL): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** The databases this run covers: scripts/test.mjs sets VOUCH_TEST_DIALECTS (default: SQLite only). */
export function testDialects(): Dialect[] {
  const names = (process.env.VOUCH_TEST_DIALECTS ?? 'sqlite').split(',').map((d) => d.trim());
  return names.filter((d): d is Dialect => d === 'sqlite' || d === 'postgres');
}

/**
 * How long a Vouch process may take to be ready. scripts/test.mjs measures the app's start-up once
 * per run (VOUCH_TEST_STARTUP_MS); a budget of many start-ups grows with the machine's load
 * instead of failing a busy run. Files run on their own get a generous fixed budget.
 */
export function startupBudgetMs(): number {
  const measured = Number(process.env.VOUCH_TEST_STARTUP_MS);
  return Number.isFinite(measured) && measured > 0 ? Math.max(60_000, 30 * measured) : 120_000;
}

/**
 * A bound for a timing check that guards against a stall of seconds (a request or an event-loop
 * pause): never below `minimumMs`, and as many app start-ups as `startups` on a machine busy enough
 * that one start-up takes longer, so other work on the machine does not fail the run.
 */
export function stallBoundMs(minimumMs: number, startups = 1): number {
  const measured = Number(process.env.VOUCH_TEST_STARTUP_MS);
  return Number.isFinite(measured) && measured > 0 ? Math.max(minimumMs, startups * measured) : minimumMs;
}

/**
 * Tests that start Vouch as a process run the compiled build (dist/), as production does: a spawn
 * through tsx spends most of its time compiling. Call it in `before`. Under `npm test` it waits for
 * the run's one build (sources edited during the run do not trigger another); a file run on its
 * own compiles when src/ changed since the last build.
 */
export async function useCompiledBuild(): Promise<void> {
  if (process.env.VOUCH_TEST_BUILD === 'runner') await waitForBuild();
  else await buildIfStale();
}

/**
 * An answer: `body` is its JSON (or its text when it is not JSON), typed as the document's success
 * answer of the route; `error` is the same JSON as an error body, and throws on a success status.
 */
export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  readonly error: ErrorBody;
}

export interface RequestOptions<K extends ProgramType = ProgramType, Sent = unknown> {
  /** An API key (a program's key narrows the answers that differ by program type), or any token. */
  token?: ProgramKey<K> | string;
  /** A value to send as JSON, or a string sent as is. */
  body?: Sent;
  headers?: Record<string, string>;
}

export interface TestProgram<K extends ProgramType = ProgramType> {
  id: number;
  publicId: string;
  type: K;
  /** A full-scope key. */
  token: ProgramKey<K>;
  /** A read-only key. */
  readToken: ProgramKey<K>;
}

export interface TestServer {
  dialect: Dialect;
  url: string;
  app: FastifyInstance;
  deps: Deps;
  /** Every statement the database refused since the server started (ADR 0053). */
  failedQueries: FailedQuery[];
  /** Answers the document's type for the route; a path the types cannot place answers `unknown`. */
  request<
    const M extends string,
    const P extends string,
    K extends ProgramType = ProgramType,
    Sent = unknown,
  >(method: M, path: P, options?: RequestOptions<K, Sent>): Promise<Reply<AnswerOf<M, P, K, Sent>>>;
  /** An answer of a type the test states (a route outside the document, a path built at run time). */
  request<T>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  admin<const M extends string, const P extends string>(
    method: M,
    path: P,
    body?: unknown,
  ): Promise<Reply<AnswerOf<M, P>>>;
  admin<T>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  newProgram<K extends ProgramType>(
    type: K,
    options?: { name?: string; website?: string },
  ): Promise<TestProgram<K>>;
  close(): Promise<void>;
}

export interface ServerOptions {
  dialect: Dialect;
  env?: Record<string, string>;
  clock?: Clock;
  /** Share another server's database (several instances against one PostgreSQL). */
  database?: { url: string };
  /** Adds routes before the server starts (a route that fails on purpose, say). */
  routes?: (app: FastifyInstance) => void;
}

async function openTestDatabase(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') return { url: 'sqlite::memory:', drop: async () => {} };
  const schema = `t_${process.pid}_${randomAlphanumeric(8).toLowerCase()}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        // A failed drop (a test left requests running) must not keep the file's process alive.
        await client.end();
      }
    },
  };
}

/**
 * A reply whose body the caller types (the document's answer, or what a test states); `error`
 * reads the body as an error and fails the test when the status is a success.
 */
export function replyOf<T>(status: number, headers: Headers, parsed: unknown, text: string): Reply<T> {
  return {
    status,
    headers,
    body: parsed as T,
    text,
    get error(): ErrorBody {
      if (status < 400) throw new Error(`expected an error, got ${status}: ${text}`);
      return parsed as ErrorBody;
    },
  };
}

/** Starts Vouch on a loopback port with a fresh database (or a shared one), migrated. */
export async function startServer(options: ServerOptions): Promise<TestServer & { databaseUrl: string }> {
  const fresh = options.database ? undefined : await openTestDatabase(options.dialect);
  const databaseUrl = options.database?.url ?? present(fresh, 'a fresh test database').url;
  const config: Config = loadConfig({
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    RATE_LIMIT_PER_MINUTE: '100000',
    SECRET_KEY: TEST_SECRET_KEY,
    AUTH_FAILURES_PER_MINUTE: '0',
    ADMIN_RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    // Real scrypt hashes at N = 2^10: the suite signs in thousands of times, and at the default
    // 2^17 each hash is most of a second of a core. Tests of the cost itself set it back.
    PASSWORD_HASH_COST: '10',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...options.env,
  });
  const failedQueries: FailedQuery[] = [];
  const database: Database = await openDatabase(config.databaseUrl, {
    poolSize: 4,
    onFailedQuery: (failure) => failedQueries.push(failure),
  });
  await migrateOrThrow(database);
  const deps: Deps = assembleDeps({
    database,
    clock: options.clock ?? systemClock,
    log: pino({ level: config.logLevel }),
    config,
  });
  const app = await buildApp(deps);
  try {
    options.routes?.(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await app.close().catch(() => {});
    await database.close();
    await fresh?.drop();
    throw error;
  }
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await httpRequest(`${url}${path}`, method, headers, body);
    const text = response.text;
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return replyOf<T>(response.status, response.headers, parsed, text);
  };

  const admin = <T>(method: string, path: string, body?: unknown) =>
    request<T>(method, path, { token: ADMIN_TOKEN, body });

  const newProgram = async <K extends ProgramType>(
    type: K,
    opts: { name?: string; website?: string } = {},
  ): Promise<TestProgram<K>> => {
    const created = await admin<AnswerOf<'POST', '/admin/v1/programs'>>('POST', '/admin/v1/programs', {
      name: opts.name ?? `${type} program`,
      type,
      website: opts.website ?? 'https://shop.example.com',
    });
    if (created.status !== 201) throw new Error(`program create failed: ${created.text}`);
    const id = created.body.data.id;
    type KeyAnswer = AnswerOf<'POST', '/admin/v1/programs/{id}/api-keys'>;
    const full = await admin<KeyAnswer>('POST', `/admin/v1/programs/${id}/api-keys`, { name: 'full' });
    const read = await admin<KeyAnswer>('POST', `/admin/v1/programs/${id}/api-keys`, {
      name: 'read',
      scope: 'read',
    });
    return {
      id,
      publicId: created.body.data.public_id,
      type,
      token: full.body.data.token,
      readToken: read.body.data.token,
    };
  };

  return {
    dialect: options.dialect,
    url,
    app,
    deps,
    failedQueries,
    databaseUrl,
    request,
    admin,
    newProgram,
    close: async () => {
      await app.close();
      await database.close();
      await fresh?.drop();
    },
  };
}

/**
 * Makes a program keep its events: they are written only while it has an active webhook
 * (src/outbox/outbox.ts). This one subscribes to no event, so the worker sends it nothing, and it
 * is stored directly, so a program of any type can have it. Call it before the writes whose events
 * a test reads with `recordedEvents`.
 */
export async function listenToEvents(server: TestServer, program: Pick<TestProgram, 'id'>): Promise<void> {
  const now = new Date().toISOString();
  await server.deps.database.db
    .insertInto('webhooks')
    .values({
      program_id: program.id,
      key: `listener-${program.id}`,
      name: 'test listener',
      url: 'http://127.0.0.1:9/',
      is_active: true,
      signature: 'test-listener-signature',
      events: '[]',
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** The events a program recorded (the outbox), oldest first, each with its payload parsed. */
export async function recordedEvents(
  server: TestServer,
  program: Pick<TestProgram, 'id'>,
): Promise<{ event: string; payload: JsonObject }[]> {
  const rows = await server.deps.database.db
    .selectFrom('events')
    .select(['event', 'payload'])
    .where('program_id', '=', program.id)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ event: row.event, payload: JSON.parse(row.payload) as JsonObject }));
}

/**
 * Runs a suite once per database of this run, each on a fresh database and server of its own:
 * `describeEachDatabase('program', (server) => { test(…, async () => server().request(…)) })`.
 */
export function describeEachDatabase(
  name: string,
  suite: (server: () => TestServer, dialect: Dialect) => void,
  options: Omit<ServerOptions, 'dialect'> = {},
): void {
  for (const dialect of testDialects()) {
    describe(`${name} [${dialect}]`, () => {
      let server: TestServer | undefined;
      before(async () => {
        server = await startServer({ ...options, dialect });
      });
      after(async () => {
        await server?.close();
      });
      suite(() => {
        if (!server) throw new Error('server not started');
        return server;
      }, dialect);
    });
  }
}

/** A clock tests move by hand (webhook schedules, counters by day). */
export class ManualClock implements Clock {
  constructor(private micros = Date.parse('2026-01-15T12:00:00.000Z') * 1000) {}
  nowMicros(): number {
    return this.micros;
  }
  advance(ms: number): void {
    this.micros += ms * 1000;
  }
  set(iso: string): void {
    this.micros = Date.parse(iso) * 1000;
  }
}
