// The partner portal's dashboard on a seeded affiliate program: one partner with 10,000 customers
// and 100,000 sales (so 100,000 commissions) by default (BENCH_CUSTOMERS / BENCH_TRANSACTIONS
// change the scale), signed in through the portal's own form, at 20 connections. SQLite only.
// Run: `node --import tsx bench/portal.bench.ts`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { present } from '../src/core/present.ts';
import { load, type ReportRow, report, startBare, startVouch, vouchCli } from './lib.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const customers = Number(process.env.BENCH_CUSTOMERS ?? 10_000);
const transactions = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);
const connections = 20;

/** The cookies a response sets, as a request's Cookie header. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');

/**
 * Signs the partner in through the portal's form, as a browser does; answers the Cookie header a
 * browser then sends: the session and the CSRF cookie the sign-in page set (without it, every
 * view would make and set a new CSRF secret, which no browser causes).
 */
async function signIn(url: string, email: string, password: string) {
  const form = await fetch(`${url}/sign-in`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(form) },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status}`);
  return `${cookiesOf(form)}; ${cookiesOf(signedIn)}`;
}

const dir = mkdtempSync(join(tmpdir(), 'vouch-portal-bench-'));
const databaseUrl = `sqlite:${join(dir, 'portal.db')}`;
try {
  const seeded = await vouchCli(databaseUrl, [
    'seed',
    '--partners',
    '1',
    '--customers',
    String(customers),
    '--transactions',
    String(transactions),
  ]);
  const auth = { authorization: `Bearer ${seeded.api_key.token}`, 'content-type': 'application/json' };

  const bare = await startBare();
  const bareResult = await load({ url: bare.url, path: '/', duration, connections });
  await bare.stop();

  const vouch = await startVouch({ databaseUrl, env: { PAGES_RATE_LIMIT_PER_MINUTE: '0' } });
  const list = (await (await fetch(`${vouch.url}/v1/partners?limit=1`, { headers: auth })).json()) as {
    data: { id: string; email: string }[];
  };
  const partner = present(list.data[0], 'a partner');
  const password = 'Bench1234';
  const set = await fetch(`${vouch.url}/v1/partners/${partner.id}`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify({ password }),
  });
  if (set.status !== 200) throw new Error(`password not set: ${set.status}`);
  const portal = `${vouch.url}/p/${seeded.program.public_id}`;
  const cookie = await signIn(portal, partner.email, password);

  const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];
  rows.push({
    name: 'GET /p/{program}/dashboard',
    result: await load({
      url: vouch.url,
      path: `/p/${seeded.program.public_id}/dashboard`,
      headers: { cookie, accept: 'text/html' },
      duration,
      connections,
    }),
    bare: bareResult,
    target: 'p99 ≤ 30 ms',
  });
  rows.push({
    name: 'GET /p/{program}/sign-in (a form page)',
    result: await load({
      url: vouch.url,
      path: `/p/${seeded.program.public_id}/sign-in`,
      headers: { accept: 'text/html' },
      duration,
      connections,
    }),
    bare: bareResult,
  });
  report(
    `Partner portal on SQLite (1 partner, ${customers} customers, ${transactions} sales; ${connections} connections)`,
    rows,
  );
  await vouch.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
