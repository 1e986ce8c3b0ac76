// Fraud rules on a sale (issue 27): POST /v1/transactions for a referred buyer, with the
// buyer's `context` (address, user agent, click id), with every rule off and with every rule on
// (flag; paid ads forbidden; fast_conversion reading the click), on SQLite and on PostgreSQL when
// reachable. The target: rules on stays within 10 % of rules off. The two settings alternate over
// eight loads, off-on-on-off then on-off-off-on, so a machine that speeds up or slows down during
// the run weighs on both alike, and their means are compared. Each load sells in a program of its
// own (see sellingProgram). The CPU each request cost Vouch (and, on PostgreSQL, its backends) is
// printed too, steadier than the rates.
// Run: `node --import tsx bench/fraud.bench.ts` (BENCH_DURATION seconds per load, default 10).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  backendPids,
  cpuMillis,
  createProgram,
  type LoadResult,
  load,
  meanOfLoads,
  postgresDatabase,
  report,
  startVouch,
} from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131';

const every = (action: 'off' | 'flag') => ({
  fraud_rules: {
    self_referral: action === 'off' ? 'off' : 'block',
    same_address: action,
    disposable_email: action,
    paid_ads: action,
    fast_conversion: action,
  },
  paid_ads_allowed: action === 'off',
  fast_conversion_seconds: 1,
});

/** The settings' loads, alternating: off-on-on-off, then on-off-off-on. */
const ORDER = ['off', 'flag', 'flag', 'off', 'flag', 'off', 'off', 'flag'] as const;

/**
 * A program ready to sell: a partner, its click and a referred buyer. Each load sells in a program
 * of its own, so that every load starts from the same state: every sale updates its buyer's and
 * partner's rows and figures. With one program for the whole run (a scratch run of these steps),
 * each PostgreSQL load ran slower than the one before, whatever the setting (780 → 395 req/s over
 * six), which favoured the setting measured first and last.
 */
async function sellingProgram(url: string, databaseUrl: string) {
  const program = await createProgram(databaseUrl, 'affiliate');
  const authorization = `Bearer ${program.token}`;
  const call = async (method: string, path: string, body: unknown, headers?: Record<string, string>) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: headers ?? { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: Record<string, unknown> };
  };
  await call('PUT', '/v1/program', { website: 'https://shop.example.com' });
  await call('POST', '/v1/partners', { email: 'bench@example.com', key: 'bench' });
  const test = await fetch(`${url}/v1/test`, { headers: { authorization } });
  const publicId = ((await test.json()) as { data: { program: { pub_id: string } } }).data.program.pub_id;
  const click = await call(
    'POST',
    '/t/click',
    { program: publicId, key: 'bench', url: 'https://shop.example.com/?aff=bench' },
    { 'content-type': 'text/plain', 'user-agent': BROWSER },
  );
  await call('POST', '/v1/customers', {
    key: 'buyer',
    email: 'buyer@example.com',
    partner: { key: 'bench' },
  });
  const context = { ip: '203.0.113.9', user_agent: BROWSER, click_id: String(click.data.click_id) };
  return { call, authorization, context };
}

async function measure(name: string, databaseUrl: string) {
  const appName = `vouch-fraud-bench-${process.pid}`;
  const vouch = await startVouch({
    databaseUrl,
    env: { CLICK_RATE_LIMIT_PER_MINUTE: '0', PGAPPNAME: appName },
  });
  try {
    const warm = await sellingProgram(vouch.url, databaseUrl);
    const programs = [];
    for (const action of ORDER) {
      const program = await sellingProgram(vouch.url, databaseUrl);
      await program.call('PUT', '/v1/program', { program_settings: every(action) });
      programs.push({ ...program, action });
    }
    // The clicks were written within seconds, and are older than `fast_conversion_seconds` now.
    await sleep(1500);
    const results: Record<'off' | 'flag', LoadResult[]> = { off: [], flag: [] };
    // A short load first: the pool opens its connections, whose backends the CPU figure counts.
    await load({
      url: vouch.url,
      method: 'POST',
      path: '/v1/transactions',
      headers: { authorization: warm.authorization },
      body: JSON.stringify({ key: 'warm-{{n}}', amount: 49.99, action: 'sale', customer: { key: 'buyer' } }),
      duration: 2,
    });
    const pids = [vouch.process.pid ?? 0];
    if (name === 'PostgreSQL') pids.push(...(await backendPids(databaseUrl, appName)));
    const cpu = { off: { millis: 0, requests: 0 }, flag: { millis: 0, requests: 0 } };
    for (const [round, { action, authorization, context }] of programs.entries()) {
      const before = cpuMillis(pids) ?? 0;
      const result = await load({
        url: vouch.url,
        method: 'POST',
        path: '/v1/transactions',
        headers: { authorization },
        body: JSON.stringify({
          key: 'sale-{{n}}',
          amount: 49.99,
          action: 'sale',
          customer: { key: 'buyer' },
          context,
        }),
        duration,
      });
      const millis = (cpuMillis(pids) ?? 0) - before;
      cpu[action].millis += millis;
      cpu[action].requests += result.total;
      results[action].push(result);
      const perRequest = ((millis * 1000) / Math.max(1, result.total)).toFixed(0);
      console.log(
        `load ${round + 1} (${action}, ${name}): ${result.rps.toFixed(0)} req/s, ${perRequest} µs of CPU a request`,
      );
    }
    const off = meanOfLoads(results.off);
    const on = meanOfLoads(results.flag);
    report(`Fraud rules on a sale (${name}; 50 connections, mean of four loads each, alternating)`, [
      { name: `POST /v1/transactions, rules off (${name})`, result: off },
      { name: `POST /v1/transactions, every rule on (${name})`, result: on, target: '≥ 0.90× rules off' },
    ]);
    const ratio = on.rps / off.rps;
    console.log(`rules on / rules off: ${ratio.toFixed(3)} (${name})`);
    if (cpuMillis(pids) !== undefined) {
      const perRequest = (action: 'off' | 'flag') =>
        (cpu[action].millis * 1000) / Math.max(1, cpu[action].requests);
      const of = name === 'PostgreSQL' ? 'Vouch and its database backends' : 'Vouch';
      const figure = `rules off ${perRequest('off').toFixed(0)} µs, on ${perRequest('flag').toFixed(0)} µs: ${(
        perRequest('off') / perRequest('flag')
      ).toFixed(2)}×`;
      console.log(`CPU per request, ${of} (${name}): ${figure}`);
      recordFigure('Fraud rules on a sale', `CPU per request, ${of} (${name})`, figure, '≥ 0.90×');
    }
    recordFigure(
      'Fraud rules on a sale',
      `rules on / rules off (${name})`,
      `${ratio.toFixed(2)}×`,
      '≥ 0.90×',
    );
  } finally {
    await vouch.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'vouch-fraud-bench-'));
try {
  await measure('SQLite', `sqlite:${join(dir, 'fraud.db')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const postgres = await postgresDatabase();
if (postgres) {
  try {
    await measure('PostgreSQL', postgres.url);
  } finally {
    await postgres.drop();
  }
} else console.log('PostgreSQL unreachable: SQLite only');
