// The write and read paths of issue 15 on SQLite and on PostgreSQL (small programs, created through
// the API): affiliate sales on one partner (20 buyers) and spread over 1,000 partners, refer-a-friend
// signups and purchases, GET /v1/customers/{id} and GET /v1/program, as ratios to the bare server;
// then two Vouch processes on one PostgreSQL behind a round-robin client, Fastify and pg alone on
// the same schema (the ceiling: a point read, a read then an insert), and a recount of every
// figure the load moved from its rows (the figures must stay exact under load).
// Run: `node --import tsx bench/databases.bench.ts`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  createProgram,
  type LoadResult,
  load,
  postgresDatabase,
  type ReportRow,
  report,
  type Server,
  startBare,
  startPostgresCeiling,
  startVouch,
} from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
// BENCH_CASES=sales,customers runs only the cases whose label contains one of the words.
const cases = process.env.BENCH_CASES?.split(',').filter(Boolean);
const wanted = (label: string) => !cases || cases.some((word) => label.includes(word));
const SPREAD = 1_000;
const BUYERS = 20;
const REFERRERS = 100;

async function api(server: Server, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Runs `make(i)` for i < count, `parallel` at a time. */
async function each(count: number, parallel: number, make: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await make(next++);
    }),
  );
}

/** Partners `p{i}` with buyer `c{i}` (i < 1,000), and 20 more buyers `s{j}` of partner `p0`. */
async function affiliateSetup(server: Server, token: string) {
  await each(SPREAD, 8, async (i) => {
    await api(server, token, 'POST', '/v1/partners', { key: `p${i}`, email: `p${i}@bench.example` });
    await api(server, token, 'POST', '/v1/customers', { key: `c${i}`, partner: { key: `p${i}` } });
  });
  await each(BUYERS, 8, (j) =>
    api(server, token, 'POST', '/v1/customers', { key: `s${j}`, partner: { key: 'p0' } }),
  );
}

/** Referrers `f{i}`, each with a referred customer `r{i}`; every purchase rewards both sides. */
async function referralSetup(server: Server, token: string) {
  const every = {
    type: 'fixed',
    value: 10,
    is_currency: true,
    amount_units: 'USD',
    trigger: 'every_purchase',
    limit: null,
  };
  await api(server, token, 'PUT', '/v1/program', {
    program_settings: { referrer_reward: every, referred_reward: every },
  });
  await each(REFERRERS, 8, async (i) => {
    await api(server, token, 'POST', '/v1/customers', { id: `f${i}`, email: `f${i}@bench.example` });
    await api(server, token, 'POST', '/v1/customers', {
      id: `r${i}`,
      email: `r${i}@bench.example`,
      referring_customer: { id: `f${i}` },
    });
  });
}

const sale = (customer: string) =>
  JSON.stringify({ key: 'bench-{{n}}', amount: 49.99, action: 'sale', customer: { key: customer } });

const signup = JSON.stringify({
  key: 'n-{{n}}',
  email: 'n-{{n}}@bench.example',
  referring_customer: { id: `f{{n%${REFERRERS}}}` },
});

/** A client of the bench's schema (the `schema` of its URL), connected. */
async function schemaClient(databaseUrl: string) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
  await client.connect();
  return { client, schema };
}

/** What autovacuum's analyze does for a new schema within its first minute of writes. */
async function analyze(databaseUrl: string) {
  const { client, schema } = await schemaClient(databaseUrl);
  try {
    const { rows } = await client.query(
      'select tablename from pg_tables where schemaname = $1 order by tablename',
      [schema],
    );
    for (const { tablename } of rows) await client.query(`analyze ${client.escapeIdentifier(tablename)}`);
  } finally {
    await client.end();
  }
}

async function measure(
  name: string,
  databaseUrl: string,
  bare: LoadResult,
  postgres: boolean,
): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  const affiliate = await createProgram(databaseUrl, 'affiliate');
  const referral = await createProgram(databaseUrl, 'referral');
  const vouch = await startVouch({ databaseUrl });
  const row = (label: string, result: LoadResult, target = '') =>
    rows.push({ name: `${label} (${name})`, result, bare, target: postgres ? target : '' });
  try {
    if (wanted('sales')) await affiliateSetup(vouch, affiliate.token);
    await referralSetup(vouch, referral.token);
    const a = { authorization: `Bearer ${affiliate.token}` };
    const r = { authorization: `Bearer ${referral.token}` };
    const post = (headers: Record<string, string>, path: string, body: string, seconds = duration) =>
      load({ url: vouch.url, method: 'POST', path, headers, body, duration: seconds });
    if (postgres) {
      // Steady state: a running server's tables have statistics (autovacuum analyzes a table within
      // its first minute of writes), and its pooled statements are planned with them. A fresh
      // schema has none, and a statement prepared on an empty table can keep a plan that reads the
      // program's every row; a short warm-up and the ANALYZE autovacuum would run stand for that
      // minute. Its sales, buyers and customers are others than the measured ones.
      if (wanted('sales')) {
        await each(BUYERS, 8, (j) =>
          api(vouch, affiliate.token, 'POST', '/v1/customers', { key: `w${j}`, partner: { key: 'p1' } }),
        );
        await post(a, '/v1/transactions', sale(`w{{n%${BUYERS}}}`).replace('bench-', 'warm-'), 2);
      }
      await post(r, '/v1/customers', signup.replace(/n-/g, 'warm-'), 2);
      await analyze(databaseUrl);
    }
    if (wanted('sales')) {
      const oneRow = await post(a, '/v1/transactions', sale(`s{{n%${BUYERS}}}`));
      row('sales, 1 partner, 20 buyers', oneRow, '≥ 0.05×, p99 ≤ 50 ms');
      const spread = await post(a, '/v1/transactions', sale(`c{{n%${SPREAD}}}`));
      row('sales, 1,000 partners', spread, '≥ 0.05×');
      console.log(
        `${name}: one partner at ${((100 * oneRow.rps) / spread.rps).toFixed(0)} % of 1,000 partners (target ≥ 70 %)`,
      );
      const share = `${((100 * oneRow.rps) / spread.rps).toFixed(0)} %`;
      recordFigure('Databases', `one partner as a share of 1,000 partners (${name})`, share, '≥ 70 %');
    }
    if (wanted('signup')) row('refer-a-friend signup', await post(r, '/v1/customers', signup), '≥ 0.04×');
    if (wanted('purchase'))
      row(
        'refer-a-friend purchase',
        await post(
          r,
          '/v1/transactions',
          JSON.stringify({
            key: 'bench-{{n}}',
            amount: 49.99,
            amount_units: 'USD',
            action: 'sale',
            customer: { id: `r{{n%${REFERRERS}}}` },
          }),
        ),
        '≥ 0.04×',
      );
    const get = (headers: Record<string, string>, path: string) =>
      load({ url: vouch.url, path, headers, duration });
    if (wanted('customers'))
      row('GET /v1/customers/{id}', await get(r, '/v1/customers/f7'), '≥ 0.12×, p99 ≤ 20 ms');
    if (wanted('program')) row('GET /v1/program', await get(a, '/v1/program'), '≥ 0.12×, p99 ≤ 20 ms');
  } finally {
    await vouch.stop();
  }
  return rows;
}

/**
 * What PostgreSQL allows here without Vouch: Fastify and pg alone, a point read, and a read
 * followed by an insert (the least a sale can be), as ratios to the same bare server.
 */
async function postgresCeiling(databaseUrl: string, bare: LoadResult): Promise<ReportRow[]> {
  const ceiling = await startPostgresCeiling(databaseUrl);
  try {
    const read = await load({ url: ceiling.url, path: '/read', duration });
    const write = await load({
      url: ceiling.url,
      method: 'POST',
      path: '/write',
      body: JSON.stringify({ key: 'ceiling-{{n}}', amount: 49.99 }),
      duration,
    });
    return [
      { name: 'Fastify + pg alone, a point read (PG)', result: read, bare, target: '(ceiling)' },
      { name: 'Fastify + pg alone, read + insert (PG)', result: write, bare, target: '(ceiling)' },
    ];
  } finally {
    await ceiling.stop();
  }
}

/**
 * Refer-a-friend signups on a fresh schema whose statistics are never refreshed (as under
 * autovacuum off): three rounds in a row, no ANALYZE. A plan that holds keeps the rounds level.
 */
async function unanalyzedSignups(bare: LoadResult): Promise<ReportRow[]> {
  const database = await postgresDatabase();
  if (!database) return [];
  const referral = await createProgram(database.url, 'referral');
  const vouch = await startVouch({ databaseUrl: database.url });
  try {
    await referralSetup(vouch, referral.token);
    const rows: ReportRow[] = [];
    for (const round of [1, 2, 3]) {
      const result = await load({
        url: vouch.url,
        method: 'POST',
        path: '/v1/customers',
        headers: { authorization: `Bearer ${referral.token}` },
        body: signup.replace(/n-/g, `u${round}-`),
        duration,
      });
      rows.push({ name: `refer-a-friend signup, un-analyzed, round ${round} (PG)`, result, bare });
    }
    return rows;
  } finally {
    await vouch.stop();
    await database.drop();
  }
}

/** Two processes on one PostgreSQL, each connection of the client on one of them in turn. */
async function scaleOut(databaseUrl: string, bare: LoadResult): Promise<ReportRow[]> {
  const affiliate = await createProgram(databaseUrl, 'affiliate');
  const one = await startVouch({ databaseUrl });
  const two = await startVouch({ databaseUrl });
  try {
    await affiliateSetup(one, affiliate.token);
    const headers = { authorization: `Bearer ${affiliate.token}` };
    const result = await load({
      url: [one.url, two.url],
      method: 'POST',
      path: '/v1/transactions',
      headers,
      body: sale(`c{{n%${SPREAD}}}`),
      duration,
    });
    const oneSales = await load({
      url: [one.url, two.url],
      method: 'POST',
      path: '/v1/transactions',
      headers,
      body: sale(`s{{n%${BUYERS}}}`),
      duration,
    });
    return [
      { name: 'sales, 1,000 partners, 2 processes (PG)', result, bare },
      { name: 'sales, 1 partner, 2 processes (PG)', result: oneSales, bare },
    ];
  } finally {
    await one.stop();
    await two.stop();
  }
}

/**
 * Every figure the load moved, recounted from its rows: program sales and revenue, each partner's
 * sales count and revenue, each referrer's sales. Prints the figures that differ (none expected).
 */
async function recount(databaseUrl: string) {
  const { client } = await schemaClient(databaseUrl);
  try {
    const { rows } = await client.query(`
      with stored as (
        select program_id, 'program' as kind, 0::bigint as owner_id, metric,
               sum(value_hi::numeric * 1000000000000 + value) as value
        from program_counters where day = 'total' and metric in ('sales', 'revenue:usd')
        group by program_id, metric
        union all
        select program_id, owner_kind, owner_id, metric, sum(value_hi::numeric * 1000000000000 + value)
        from entity_counters where metric in ('sales_count', 'revenue:usd')
        group by program_id, owner_kind, owner_id, metric
      ), counted as (
        select program_id, 'program' as kind, 0::bigint as owner_id, 'sales' as metric, count(*)::numeric as value
        from transactions where archived_at is null group by program_id
        union all
        select program_id, 'program', 0, 'revenue:usd', sum(amount)::numeric
        from transactions where archived_at is null group by program_id
        union all
        select program_id, 'partner', partner_id, 'sales_count', count(*)::numeric
        from transactions where archived_at is null and partner_id is not null group by program_id, partner_id
        union all
        select program_id, 'partner', partner_id, 'revenue:usd', sum(amount)::numeric
        from transactions where archived_at is null and partner_id is not null group by program_id, partner_id
      )
      select c.*, s.value as stored from counted c
      left join stored s using (program_id, kind, owner_id, metric)
      where s.value is distinct from c.value`);
    const { rows: counted } = await client.query('select count(*)::int as n from transactions');
    console.log(
      `recount after load: ${counted[0].n} sales, ${rows.length} figure(s) differ from their rows${rows.length ? `: ${JSON.stringify(rows.slice(0, 5))}` : ''}`,
    );
    const differ = `${rows.length} (${counted[0].n.toLocaleString('en-US')} sales)`;
    recordFigure('Databases', 'figures differing from a recount after the load (PG)', differ, '0');
  } finally {
    await client.end();
  }
}

const bare = await startBare();
const bareResult = await load({ url: bare.url, path: '/', duration });
await bare.stop();
const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];

const only = process.env.BENCH_DATABASES ?? 'sqlite,postgres';
if (only.includes('sqlite')) {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-databases-bench-'));
  try {
    rows.push(...(await measure('SQLite', `sqlite:${join(dir, 'bench.db')}`, bareResult, false)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const postgres = only.includes('postgres') ? await postgresDatabase() : undefined;
if (postgres) {
  try {
    rows.push(...(await measure('PG', postgres.url, bareResult, true)));
    if (wanted('processes')) rows.push(...(await scaleOut(postgres.url, bareResult)));
    if (wanted('ceiling')) rows.push(...(await postgresCeiling(postgres.url, bareResult)));
    if (wanted('un-analyzed')) rows.push(...(await unanalyzedSignups(bareResult)));
    if (wanted('recount')) await recount(postgres.url);
  } finally {
    await postgres.drop();
  }
} else if (only.includes('postgres')) console.log('PostgreSQL unreachable: SQLite only');
report('SQLite and PostgreSQL write and read paths (50 connections)', rows);
