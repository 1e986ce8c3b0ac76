// Scratch: in-process timing of the 365-day daily series (5 metrics) on a seeded file.
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { assembleDeps } from '../src/deps.ts';
import { systemClock } from '../src/core/time.ts';
const file = process.env.FILE ?? '/work/scratch/lead/small/small.db';
const token = process.env.TOKEN!;
const config = loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' });
const database = await openDatabase(config.databaseUrl, { poolSize: 4 });
const deps = assembleDeps({ database, clock: systemClock, log: pino({ level: 'silent' }), config });
const app = await buildApp(deps);
const today = new Date().toISOString().slice(0, 10);
const daysBefore = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
const url = process.env.URL ?? `/v1/reports/timeseries?metrics=clicks,signups,sales,revenue,commissions&interval=day&start=${daysBefore(364)}&end=${today}`;
const headers = { authorization: `Bearer ${token}` };
const first = await app.inject({ method: 'GET', url, headers });
console.log(first.statusCode, first.body.length, first.body.slice(0, 300));
const N = Number(process.env.N ?? 2000);
for (let round = 0; round < 4; round++) {
  const t = process.hrtime.bigint();
  const c = process.cpuUsage();
  for (let i = 0; i < N; i++) await app.inject({ method: 'GET', url, headers });
  const cu = process.cpuUsage(c);
  console.log(`round ${round}: ${(Number(process.hrtime.bigint() - t) / 1e3 / N).toFixed(0)} µs wall, ${((cu.user + cu.system) / N).toFixed(0)} µs cpu`);
}
await app.close();
await database.close();
