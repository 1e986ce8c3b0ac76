// Reports and exports on a seeded affiliate program (issue 26): a 365-day daily series of five
// metrics, a 3-year weekly series, the top 10 partners by revenue over a year (20 connections
// each), and the streaming speed of the full transactions export. The seed's scale defaults to
// 100k partners, 1M customers and 2M sales; BENCH_PARTNERS / BENCH_CUSTOMERS / BENCH_TRANSACTIONS
// scale it down on a small machine; BENCH_REPORTS_DATABASE names an already seeded SQLite file to
// use instead (left in place). SQLite only, like the affiliate bench.
// Run: `npm run bench -- reports`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { present } from '../src/core/present.ts';
import { load, type ReportRow, report, type Server, startVouch, vouchCli } from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const partners = Number(process.env.BENCH_PARTNERS ?? 100_000);
const customers = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
const transactions = Number(process.env.BENCH_TRANSACTIONS ?? 2_000_000);

const existing = process.env.BENCH_REPORTS_DATABASE;

/** The whole transactions export read to its end, and the server's resident memory meanwhile. */
async function wholeExport(vouch: Server, auth: Record<string, string>) {
  const rssBefore = residentBytes(vouch.process.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, residentBytes(vouch.process.pid));
  }, 50);
  const started = performance.now();
  const file = await fetch(`${vouch.url}/v1/exports/transactions.csv`, { headers: auth });
  let bytes = 0;
  for await (const chunk of present(file.body, 'the export body')) bytes += (chunk as Uint8Array).byteLength;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return { bytes, seconds, rssBefore, grown: ((rssPeak - rssBefore) / 1e6).toFixed(0) };
}

/** A process's resident memory in bytes (Linux /proc), 0 when it cannot be read. */
function residentBytes(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
const dir = existing ? undefined : mkdtempSync(join(tmpdir(), 'vouch-reports-bench-'));
const databaseUrl = `sqlite:${existing ?? join(dir ?? '', 'reports.db')}`;

/** A key of the seeded program: the seed's own, or a new read key of the existing file's first program. */
async function seededKey(): Promise<string> {
  if (!existing) {
    const seeded = await vouchCli(databaseUrl, [
      'seed',
      '--partners',
      String(partners),
      '--customers',
      String(customers),
      '--transactions',
      String(transactions),
    ]);
    return seeded.api_key.token;
  }
  const programs = await vouchCli(databaseUrl, ['programs', 'list']);
  const key = await vouchCli(databaseUrl, [
    'keys',
    'create',
    '--program',
    String(programs[0].id),
    '--scope',
    'read',
  ]);
  return key.token;
}

try {
  const auth = { authorization: `Bearer ${await seededKey()}` };
  const vouch = await startVouch({ databaseUrl });
  const today = new Date().toISOString().slice(0, 10);
  const daysBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  const year = `start=${daysBefore(364)}&end=${today}`;
  const paths: [string, string, string][] = [
    [
      '365-day daily series, five metrics',
      `/v1/reports/timeseries?metrics=clicks,signups,sales,revenue,commissions&interval=day&${year}`,
      'p99 ≤ 20 ms',
    ],
    [
      '3-year weekly series (sales, revenue)',
      `/v1/reports/timeseries?metrics=sales,revenue&interval=week&start=${daysBefore(1095)}&end=${today}`,
      'p99 ≤ 30 ms',
    ],
    [
      'top 10 partners by revenue over a year',
      `/v1/reports/top?by=partners&metric=revenue&currency=USD&limit=10&${year}`,
      'p99 ≤ 50 ms',
    ],
  ];
  const rows: ReportRow[] = [];
  for (const [name, path, target] of paths) {
    rows.push({
      name,
      result: await load({ url: vouch.url, path, headers: auth, duration, connections: 20 }),
      target,
    });
  }
  report(`Reports on SQLite (${partners} partners, ${transactions} sales; 20 connections)`, rows);

  // The whole export, twice. The first of a process starts its two reader threads (ADR 0145),
  // kept for the exports after it; the second is what each export after that costs.
  for (const run of ['first', 'second'] as const) {
    const { bytes, seconds, rssBefore, grown } = await wholeExport(vouch, auth);
    const rate = (bytes / 1e6 / seconds).toFixed(1);
    console.log(
      `transactions export (${run} of the process): ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s = ${rate} MB/s (target ≥ 50 MB/s); server memory grew ${grown} MB at most (target ≤ 100 MB)`,
    );
    recordFigure(
      'Exports',
      `GET /v1/exports/transactions.csv (${transactions} sales), the process's ${run}`,
      `${rate} MB/s (${(bytes / 1e6).toFixed(1)} MB)`,
      '≥ 50 MB/s',
    );
    recordFigure(
      'Exports',
      `server memory during the ${run} export (resident, highest above before)`,
      `${grown} MB (${(rssBefore / 1e6).toFixed(0)} MB before)`,
      '≤ 100 MB',
    );
  }
  await vouch.stop();
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
