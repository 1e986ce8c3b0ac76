// Affiliate figures on a seeded program (100k partners, 1M customers, 2M transactions by
// default; BENCH_PARTNERS / BENCH_CUSTOMERS / BENCH_TRANSACTIONS change the scale): the seed
// time, GET /v1/partners/{id}, GET /v1/partners?page=1 and POST /v1/transactions (commission,
// counters and outbox row in one transaction), as ratios to the bare server. SQLite only: the
// targets are SQLite's. Run: `node --import tsx bench/affiliate.bench.ts`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, type ReportRow, report, startBare, startVouch, vouchCli } from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const partners = Number(process.env.BENCH_PARTNERS ?? 100_000);
const customers = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
const transactions = Number(process.env.BENCH_TRANSACTIONS ?? 2_000_000);

const dir = mkdtempSync(join(tmpdir(), 'vouch-affiliate-bench-'));
const databaseUrl = `sqlite:${join(dir, 'affiliate.db')}`;
try {
  const started = performance.now();
  const seeded = await vouchCli(databaseUrl, [
    'seed',
    '--partners',
    String(partners),
    '--customers',
    String(customers),
    '--transactions',
    String(transactions),
  ]);
  const seedSeconds = (performance.now() - started) / 1000;
  console.log(
    `seed: ${partners} partners, ${customers} customers, ${transactions} transactions in ${seedSeconds.toFixed(1)} s (target < 180 s)`,
  );
  recordFigure(
    'Affiliate seed',
    'vouch seed: partners, customers, transactions',
    `${seedSeconds.toFixed(1)} s for ${partners.toLocaleString('en-US')} / ${customers.toLocaleString('en-US')} / ${transactions.toLocaleString('en-US')}`,
    '< 180 s',
  );
  const prefix = seeded.seeded.key_prefix as string;
  const auth = { authorization: `Bearer ${seeded.api_key.token}` };

  const bare = await startBare();
  const bareResult = await load({ url: bare.url, path: '/', duration });
  await bare.stop();

  const vouch = await startVouch({ databaseUrl });
  const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];
  const partner = `${prefix}P${Math.floor(partners / 2)}`;
  rows.push({
    name: 'GET /v1/partners/{id}',
    result: await load({ url: vouch.url, path: `/v1/partners/${partner}`, headers: auth, duration }),
    bare: bareResult,
    target: 'p99 ≤ 10 ms',
  });
  rows.push({
    name: 'GET /v1/partners?page=1',
    result: await load({ url: vouch.url, path: '/v1/partners?page=1', headers: auth, duration }),
    bare: bareResult,
    target: 'p99 ≤ 10 ms',
  });
  const customer = `${prefix}c${Math.floor(customers / 3)}`;
  rows.push({
    name: 'POST /v1/transactions',
    result: await load({
      url: vouch.url,
      method: 'POST',
      path: '/v1/transactions',
      headers: auth,
      body: JSON.stringify({
        key: 'bench-{{n}}',
        amount: 49.99,
        action: 'sale',
        customer: { key: customer },
      }),
      duration,
    }),
    bare: bareResult,
    target: '≥ 2,000 req/s',
  });
  await vouch.stop();
  report(
    `Affiliate on SQLite (${partners} partners, ${customers} customers, ${transactions} transactions; 50 connections)`,
    rows,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
