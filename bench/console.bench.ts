// The owner console (/admin) on a seeded affiliate program: 100k partners and 2M sales with their
// commissions by default (BENCH_PARTNERS / BENCH_CUSTOMERS / BENCH_TRANSACTIONS change the scale;
// BENCH_CONSOLE_DATABASE names an already seeded SQLite file to use instead, left in place). A
// console user made with `vouch users create` signs in through the console's own form; then the
// partners list (All, Pending), the commissions list (All and by status) and the overview load at
// 20 connections, each after one request alone (printed; recorded instead of the load's figures
// when no request was answered within the load). SQLite only, like the affiliate bench.
// Run: `npm run bench -- console`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase as Database } from '../src/db/sqlite-driver.ts';
import { load, type ReportRow, report, startBare, startVouch, vouchCli } from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const partners = Number(process.env.BENCH_PARTNERS ?? 100_000);
const customers = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
const transactions = Number(process.env.BENCH_TRANSACTIONS ?? 2_000_000);
const existing = process.env.BENCH_CONSOLE_DATABASE;
const connections = 20;
const target = 'p99 ≤ 50 ms';

/** The cookies a response sets, as a request's Cookie header. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');

/**
 * Signs in through the console's form, as a browser does; answers the Cookie header a browser
 * then sends: the session and the CSRF cookie the sign-in page set.
 */
async function signIn(url: string, email: string, password: string) {
  const form = await fetch(`${url}/admin/sign-in`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${url}/admin/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(form) },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  if (signedIn.status !== 303) throw new Error(`console sign-in failed: ${signedIn.status}`);
  return `${cookiesOf(form)}; ${cookiesOf(signedIn)}`;
}

/** The affiliate program of a seeded file (the first one), with its scale. */
function seededProgram(file: string) {
  const db = new Database(file, { readonly: true });
  const row = db
    .prepare(`select id, public_id from programs where type = 'affiliate' order by id limit 1`)
    .get() as { id: number; public_id: string } | undefined;
  if (!row) throw new Error(`no affiliate program in ${file}`);
  const count = (table: string) =>
    (db.prepare(`select count(*) as n from ${table} where program_id = ?`).get(row.id) as { n: number }).n;
  const scale = `${count('partners')} partners, ${count('transactions')} sales`;
  db.close();
  return { publicId: row.public_id, scale };
}

const dir = existing ? undefined : mkdtempSync(join(tmpdir(), 'vouch-console-bench-'));
const file = existing ?? join(dir ?? '', 'console.db');
const databaseUrl = `sqlite:${file}`;
try {
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
    recordFigure(
      'Console seed',
      'vouch seed: partners, customers, transactions',
      `${Number(seeded.seeded.seconds).toFixed(1)} s for ${[partners, customers, transactions].map((n) => n.toLocaleString('en-US')).join(' / ')}`,
    );
  }
  const { publicId: program, scale } = seededProgram(file);
  // A new user each run, so that an existing file can be measured again.
  const email = `bench-${Date.now()}@example.com`;
  const password = 'Bench1234';
  await vouchCli(databaseUrl, ['users', 'create', '--email', email, '--password', password]);

  const bare = await startBare();
  const bareResult = await load({ url: bare.url, path: '/', duration, connections });
  await bare.stop();

  const vouch = await startVouch({ databaseUrl, env: { PAGES_RATE_LIMIT_PER_MINUTE: '0' } });
  const cookie = await signIn(vouch.url, email, password);
  const base = `/admin/programs/${program}`;
  const section = `Owner console on SQLite (${scale}; ${connections} connections)`;
  const pages: [string, string][] = [
    ['Partners: All', '/partners'],
    ['Partners: Pending', '/partners?status=pending'],
    ['Commissions: All', '/commissions'],
    ['Commissions: Pending', '/commissions?status=pending'],
    ['Commissions: Approved', '/commissions?status=approved'],
    ['Commissions: Paid', '/commissions?status=paid'],
    // Last: a slow overview leaves requests queued in the server after its load ends.
    ['Overview', ''],
  ];
  const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];
  for (const [name, path] of pages) {
    // One request alone first (it also checks the page answers): what a page costs without a queue.
    const started = performance.now();
    const check = await fetch(`${vouch.url}${base}${path}`, { headers: { cookie } });
    await check.text();
    const alone = performance.now() - started;
    if (check.status !== 200) throw new Error(`${name}: ${check.status}`);
    console.log(`${name}: ${alone.toFixed(1)} ms for one request alone`);
    const result = await load({
      url: vouch.url,
      path: `${base}${path}`,
      headers: { cookie, accept: 'text/html' },
      duration,
      connections,
    });
    // No answer within the load: a row of zeros would read as a fast page.
    if (result.total === 0) {
      const figure = `no answer within a ${duration} s load; one request alone ${alone.toFixed(0)} ms`;
      console.log(`${name}: ${figure}`);
      recordFigure(section, `${name} (…${path || '/'})`, figure, target);
    } else rows.push({ name: `${name} (…${path || '/'})`, result, bare: bareResult, target });
  }
  report(section, rows);
  await vouch.stop();
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
