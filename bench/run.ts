// `npm run bench`: the foundation's figures (GET /v1/program and GET /health on SQLite, and on
// PostgreSQL when reachable, as ratios to a bare node:http server), then every bench/*.bench.ts.
// Benchmarks report numbers; they assert nothing. BENCH_DURATION (seconds) shortens a run.
// What they measured is merged into bench/RESULTS.md at the end (bench/results.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createProgram,
  load,
  postgresDatabase,
  type ReportRow,
  report,
  startBare,
  startVouch,
} from './lib.ts';
import { writeResults } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const resultsDir = mkdtempSync(join(tmpdir(), 'vouch-bench-results-'));
// Every bench process this run starts appends its figures here (inherited through the environment).
process.env.BENCH_RESULTS_FILE = join(resultsDir, 'measured.jsonl');
let postgresReached = false;
// Other work on the machine lowers every figure: the run says how busy the machine was.
const loadAtStart = loadavg()[0] ?? 0;

async function foundation(): Promise<void> {
  const bare = await startBare();
  const bareResult = await load({ url: bare.url, path: '/', duration });
  await bare.stop();
  const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];

  const dir = mkdtempSync(join(tmpdir(), 'vouch-bench-'));
  const databases: { name: string; url: string; drop(): Promise<void> }[] = [
    {
      name: 'SQLite',
      url: `sqlite:${join(dir, 'bench.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    },
  ];
  const postgres = await postgresDatabase();
  postgresReached = postgres !== undefined;
  if (postgres) databases.push({ name: 'PostgreSQL', ...postgres });
  else console.log('PostgreSQL unreachable: SQLite only');

  for (const database of databases) {
    const program = await createProgram(database.url, 'affiliate');
    const vouch = await startVouch({ databaseUrl: database.url });
    const auth = { authorization: `Bearer ${program.token}` };
    rows.push({
      name: `GET /v1/program (${database.name})`,
      result: await load({ url: vouch.url, path: '/v1/program', headers: auth, duration }),
      bare: bareResult,
      target: database.name === 'SQLite' ? '≥ 0.25×, p99 ≤ 10 ms' : '',
    });
    rows.push({
      name: `GET /health (${database.name})`,
      result: await load({ url: vouch.url, path: '/health', duration }),
      bare: bareResult,
    });
    await vouch.stop();
    await database.drop();
  }
  report('Foundation (50 connections, autocannon in a separate process)', rows);
}

await foundation();

const only = process.argv[2];
const ran: string[] = [];
const failed: string[] = [];
for (const file of readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort()) {
  if (only && !file.includes(only)) continue;
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join('bench', file)], {
    stdio: 'inherit',
    env: process.env,
  });
  ran.push(file.replace(/\.bench\.ts$/, ''));
  if (result.status !== 0) {
    console.log(`${file} exited with ${result.status}`);
    failed.push(file);
  }
}

// Only a run of every bench on both databases, each to its end, may drop rows it did not measure.
const databases = process.env.BENCH_DATABASES;
const full = !only && postgresReached && !databases && failed.length === 0;
const covered = [
  !only && failed.length === 0 ? 'every bench' : `foundation${ran.length ? `, ${ran.join(', ')}` : ''}`,
  postgresReached ? (databases ? `BENCH_DATABASES=${databases}` : 'SQLite and PostgreSQL') : 'SQLite only',
  `${duration} s a load`,
  `load average ${loadAtStart.toFixed(1)} at the start`,
  ...(failed.length ? [`${failed.join(', ')} stopped early (its later rows are missing)`] : []),
].join('; ');
const resultsPath = fileURLToPath(new URL('RESULTS.md', import.meta.url));
writeResults(resultsPath, process.env.BENCH_RESULTS_FILE, { full, covered });
rmSync(resultsDir, { recursive: true, force: true });
console.log(`\nbench/RESULTS.md updated (${covered})`);
