// Billing integrations (issue 31): signed Stripe `invoice.paid` events for attributed customers
// against `POST /v1/transactions` for the same customers, measured in the same run on SQLite and
// on PostgreSQL when reachable. Each event is unique (its own event and invoice id) and signed
// per request with Stripe's library. Target: events ≥ 0.7× the rate of the API's sales.
// The two alternate over eight loads, each in a program of its own (see sellingProgram), and
// their means are compared. Run: `node --import tsx bench/integrations.bench.ts` (BENCH_DURATION:
// seconds for two loads, default 10).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  backendPids,
  cpuMillis,
  createProgram,
  type LoadResult,
  load,
  meanOfLoads,
  postgresDatabase,
  type ReportRow,
  report,
  startVouch,
  TEST_DATABASE_URL,
} from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const CUSTOMERS = 200;
const SECRET = 'whsec_bench_5WbX5kEWLlfzsGNjH64I8lOO';

async function call(url: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** The documented invoice.paid fixture with placeholders the load worker fills per request. */
function invoiceTemplate(): string {
  const event = JSON.parse(
    readFileSync(new URL('../test/fixtures/billing/stripe-invoice-paid.json', import.meta.url), 'utf8'),
  );
  event.id = 'evt_bench_{{n}}';
  event.data.object.id = 'in_bench_{{n}}';
  event.data.object.charge = 'ch_bench_{{n}}';
  event.data.object.payment_intent = 'pi_bench_{{n}}';
  event.data.object.customer = 'cus_bench_{{n%200}}';
  return JSON.stringify(event);
}

/** The two kinds of load, alternating: API-events-events-API, then events-API-API-events. */
const ORDER = ['api', 'events', 'events', 'api', 'events', 'api', 'api', 'events'] as const;
type Kind = (typeof ORDER)[number];

/**
 * A program ready to sell: a partner, its 200 attributed customers (`cus_bench_0…199`, the Stripe
 * customer ids the events name) and an active Stripe integration. Each load sells in a program of
 * its own, so that every load starts from the same state: every sale updates its buyer's and
 * partner's rows and the program's figures, and on PostgreSQL a program that took every sale of
 * the run made each load slower than the one before (the fraud bench saw 780 → 395 req/s over six
 * loads), which favoured the kind measured first and last.
 */
async function sellingProgram(url: string, databaseUrl: string) {
  const program = await createProgram(databaseUrl, 'affiliate');
  const { data } = await call(url, program.token, 'GET', '/v1/test');
  await call(url, program.token, 'POST', '/v1/partners', { email: 'bench@example.com', key: 'benchpartner' });
  for (let i = 0; i < CUSTOMERS; i++) {
    await call(url, program.token, 'POST', '/v1/customers', {
      key: `cus_bench_${i}`,
      partner: { key: 'benchpartner' },
    });
  }
  await call(url, program.token, 'PUT', '/v1/integrations/stripe', { webhook_secret: SECRET, active: true });
  return { token: program.token, publicId: data.program.pub_id as string };
}

async function measure(name: string, databaseUrl: string, rows: ReportRow[]) {
  const appName = `vouch-bench-${process.pid}`;
  const vouch = await startVouch({ databaseUrl, env: { PGAPPNAME: appName } });
  try {
    const loadOf = (kind: Kind, program: { token: string; publicId: string }, seconds: number) =>
      kind === 'api'
        ? load({
            url: vouch.url,
            method: 'POST',
            path: '/v1/transactions',
            headers: { authorization: `Bearer ${program.token}` },
            body: JSON.stringify({
              key: 'api-{{n}}',
              amount: 29,
              action: 'sale',
              customer: { key: 'cus_bench_{{n%200}}' },
            }),
            duration: seconds,
            warmup: 0,
          })
        : load({
            url: vouch.url,
            method: 'POST',
            path: `/integrations/stripe/${program.publicId}`,
            body: invoiceTemplate(),
            stripeSecret: SECRET,
            duration: seconds,
            warmup: 0,
          });
    const warm = await sellingProgram(vouch.url, databaseUrl);
    await loadOf('api', warm, 2);
    await loadOf('events', warm, 2);
    // CPU per request of Vouch and, on PostgreSQL, of its backends: what a request costs whatever
    // else the machine runs, where the rates swing with it.
    const pids = [vouch.process.pid ?? 0];
    if (name === 'PostgreSQL') pids.push(...(await backendPids(TEST_DATABASE_URL, appName)));
    const loads: Record<Kind, LoadResult[]> = { api: [], events: [] };
    const cpu = { api: { vouch: 0, all: 0, requests: 0 }, events: { vouch: 0, all: 0, requests: 0 } };
    const half = Math.max(1, duration / 2);
    for (const kind of ORDER) {
      const program = await sellingProgram(vouch.url, databaseUrl);
      const vouchBefore = cpuMillis(pids.slice(0, 1)) ?? 0;
      const allBefore = cpuMillis(pids) ?? 0;
      const result = await loadOf(kind, program, half);
      cpu[kind].vouch += (cpuMillis(pids.slice(0, 1)) ?? 0) - vouchBefore;
      cpu[kind].all += (cpuMillis(pids) ?? 0) - allBefore;
      cpu[kind].requests += result.total;
      loads[kind].push(result);
      console.log(`  ${kind} (${name}): ${result.rps.toFixed(0)} req/s`);
    }
    const api = meanOfLoads(loads.api);
    const events = meanOfLoads(loads.events);
    rows.push({ name: `POST /v1/transactions (${name})`, result: api });
    rows.push({
      name: `signed invoice.paid events (${name})`,
      result: events,
      bare: api,
      target: '≥ 0.7× the API',
    });
    const perRequest = (kind: 'api' | 'events', part: 'vouch' | 'all') =>
      (cpu[kind][part] * 1000) / Math.max(1, cpu[kind].requests);
    if (cpuMillis(pids.slice(0, 1)) !== undefined) {
      const part = name === 'PostgreSQL' ? 'all' : 'vouch';
      const of = name === 'PostgreSQL' ? 'Vouch and its database backends' : 'Vouch';
      const line = `API ${perRequest('api', part).toFixed(0)} µs, events ${perRequest('events', part).toFixed(0)} µs`;
      console.log(`CPU per request, ${of} (${name}): ${line}`);
      recordFigure(
        'Billing integrations',
        `CPU per request, ${of} (${name})`,
        `API ${perRequest('api', part).toFixed(0)} µs, events ${perRequest('events', part).toFixed(0)} µs: ${(
          perRequest('api', part) / perRequest('events', part)
        ).toFixed(2)}×`,
        '≥ 0.7×',
      );
    }
    recordFigure(
      'Billing integrations',
      `signed invoice.paid ÷ POST /v1/transactions (${name})`,
      `${(events.rps / api.rps).toFixed(2)}× (${events.rps.toFixed(0)} vs ${api.rps.toFixed(0)} req/s)`,
      '≥ 0.7×',
    );
  } finally {
    await vouch.stop();
  }
}

const rows: ReportRow[] = [];
const dir = mkdtempSync(join(tmpdir(), 'vouch-integrations-bench-'));
try {
  await measure('SQLite', `sqlite:${join(dir, 'bench.db')}`, rows);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const postgres = await postgresDatabase();
if (postgres) {
  try {
    await measure('PostgreSQL', postgres.url, rows);
  } finally {
    await postgres.drop();
  }
} else {
  console.log('PostgreSQL unreachable: SQLite only');
}
report('Billing integrations (50 connections; ratio: events ÷ the API in the same run)', rows);
