// Newsletter figures on a seeded program (1,000,000 subscribers by default in a ten-way referral
// tree; BENCH_SUBSCRIBERS changes the scale): GET /v1/subscribers by id and by e-mail, the portal
// page, and POST /v1/subscribers referred by a subscriber one referral short of a milestone (counter
// update and milestone check included), as ratios to the bare server. SQLite only: the targets are
// SQLite's. Run: `node --import tsx bench/newsletter.bench.ts`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgram, load, type ReportRow, report, startBare, startVouch, vouchCli } from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const subscribers = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);

const dir = mkdtempSync(join(tmpdir(), 'vouch-newsletter-bench-'));
const databaseUrl = `sqlite:${join(dir, 'newsletter.db')}`;
try {
  const program = await createProgram(databaseUrl, 'newsletter');
  const started = performance.now();
  const seeded = await vouchCli(databaseUrl, [
    'seed',
    '--subscribers',
    String(subscribers),
    '--program',
    String(program.id),
  ]);
  const prefix = seeded.seeded.key_prefix as string;
  console.log(`seed: ${subscribers} subscribers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  recordFigure(
    'Newsletter seed',
    'vouch seed --subscribers',
    `${((performance.now() - started) / 1000).toFixed(1)} s for ${subscribers.toLocaleString('en-US')}`,
  );
  const auth = { authorization: `Bearer ${program.token}` };

  const bare = await startBare();
  const bareResult = await load({ url: bare.url, path: '/', duration });
  await bare.stop();

  // The pages' per-address limit would throttle a load generator on one address.
  const vouch = await startVouch({ databaseUrl, env: { PAGES_RATE_LIMIT_PER_MINUTE: '0' } });
  const post = (path: string, body: unknown) =>
    fetch(`${vouch.url}${path}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  // Milestones at 5, 20 and 100 referrals: the referrer below starts at 10.
  for (const count of [5, 20, 100]) {
    const reply = await post('/v1/rewards', { name: `Milestone ${count}`, subscribers_count: count });
    if (!reply.ok) throw new Error(`reward: ${await reply.text()}`);
  }
  const middle = Math.floor(subscribers / 20);
  const subscriber = await (
    await fetch(`${vouch.url}/v1/subscribers/${prefix}S${middle}`, { headers: auth })
  ).json();
  const portal = new URL(subscriber.data.portal_link).pathname;

  const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];
  for (const [name, path] of [
    ['GET /v1/subscribers/{id}', `/v1/subscribers/${prefix}S${middle}`],
    ['GET /v1/subscribers/{email}', `/v1/subscribers/${prefix.toLowerCase()}.s${middle}@subscribers.example`],
  ] as const) {
    rows.push({
      name,
      result: await load({ url: vouch.url, path, headers: auth, duration }),
      bare: bareResult,
      target: 'p99 ≤ 10 ms',
    });
  }
  rows.push({
    name: 'GET /portal/… (HTML page)',
    result: await load({ url: vouch.url, path: portal, headers: { accept: 'text/html' }, duration }),
    bare: bareResult,
    target: 'p99 ≤ 10 ms',
  });
  rows.push({
    name: 'POST /v1/subscribers (referred, milestone check)',
    result: await load({
      url: vouch.url,
      method: 'POST',
      path: '/v1/subscribers',
      headers: auth,
      body: JSON.stringify({ email: 'bench-{{n}}@example.com', referral: { id: `${prefix}S${middle}` } }),
      duration,
    }),
    bare: bareResult,
    target: '≥ 2,000 req/s',
  });
  await vouch.stop();
  report(`Newsletter on SQLite (${subscribers} subscribers; 50 connections)`, rows);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
