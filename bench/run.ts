// `npm run bench`: the foundation's figures (GET /v1/program and GET /health on SQLite, and on
// PostgreSQL when reachable, as ratios to a bare node:http server), then every bench/*.bench.ts.
// Benchmarks report numbers; they assert nothing. BENCH_DURATION (seconds) shortens a run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createProgram,
  load,
  postgresDatabase,
  type ReportRow,
  report,
  startBare,
  startVouch,
} from './lib.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);

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
for (const file of readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort()) {
  if (only && !file.includes(only)) continue;
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join('bench', file)], {
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) console.log(`${file} exited with ${result.status}`);
}
