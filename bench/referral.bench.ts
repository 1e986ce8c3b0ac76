// Refer-a-friend figures on a seeded program (1,000,000 customers, half of them referred, and
// 2,000,000 transactions by default; BENCH_CUSTOMERS / BENCH_TRANSACTIONS change the scale):
// GET /v1/customers/{id}, /stats and /balance, and POST /v1/transactions earning two rewards, as
// ratios to the bare server. SQLite only: the targets are SQLite's.
// Run: `node --import tsx bench/referral.bench.ts`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTimestamp } from '../src/core/time.ts';
import { openSqlite } from '../src/db/sqlite.ts';
import { createProgram, load, type ReportRow, report, startBare, startVouch } from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const customers = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
const transactions = Number(process.env.BENCH_TRANSACTIONS ?? 2_000_000);

const CHUNK = 100_000;
const DAY = 86_400_000_000;
const SALE = 49_990_000;
const REWARD = 10_000_000;

/**
 * Customers `f{j}` (referrers) and `r{j}` (referred by `f{j}`), each with its default link; sale
 * `t` is bought by `r{t % half}`; each buyer's first purchase earns the default two rewards. The
 * counters the API reads are written from the same figures, as the live code would have.
 */
function seed(databaseUrl: string, programId: number) {
  const { raw } = openSqlite(databaseUrl);
  const half = Math.floor(customers / 2);
  const now = Date.now() * 1000;
  const at = (i: number, n: number, days: number) =>
    formatTimestamp(now - days * DAY + Math.floor((days * DAY * i) / n));
  const inChunks = (total: number, sql: string, row: (i: number) => unknown[]) => {
    const statement = raw.prepare(sql);
    for (let from = 0; from < total; from += CHUNK) {
      raw.transaction(() => {
        for (let i = from; i < Math.min(total, from + CHUNK); i++) statement.run(...row(i));
      })();
    }
  };
  const base = Number(
    (raw.prepare('select coalesce(max(id), 0) as m from customers').get() as { m: number }).m,
  );
  const customerId = (i: number) => base + 1 + i; // i < half: f{i}; else r{i - half}
  const keyOf = (i: number) => (i < half ? `f${i}` : `r${i - half}`);

  inChunks(
    customers,
    `insert into customers (id, program_id, public_id, key, email, name, referring_customer_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    (i) => {
      const created = at(i, customers, 60);
      const referrer = i < half ? null : customerId(i - half);
      return [
        customerId(i),
        programId,
        keyOf(i),
        keyOf(i),
        `${keyOf(i)}@friends.example`,
        `Customer ${i}`,
        referrer,
        created,
        created,
      ];
    },
  );
  inChunks(
    customers,
    'insert into referral_links (program_id, key, customer_id, is_default, created_at, updated_at) values (?, ?, ?, 1, ?, ?)',
    (i) => {
      const created = at(i, customers, 60);
      return [programId, keyOf(i), customerId(i), created, created];
    },
  );

  const firstTransaction =
    Number((raw.prepare('select coalesce(max(id), 0) as m from transactions').get() as { m: number }).m) + 1;
  inChunks(
    transactions,
    `insert into transactions (id, program_id, key, customer_id, referring_customer_id, action, amount, amount_units,
       is_currency, credit, rewarded, rewardable, request_digest, created_at)
     values (?, ?, ?, ?, ?, 'sale', ?, 'USD', 1, 0, 0, 1, 'seed', ?)`,
    (t) => {
      const j = t % half;
      return [
        firstTransaction + t,
        programId,
        `t${t}`,
        customerId(half + j),
        customerId(j),
        SALE,
        at(t, transactions, 30),
      ];
    },
  );
  const firstSales = Math.min(half, transactions);
  inChunks(
    firstSales * 2,
    `insert into rewards (program_id, transaction_id, customer_id, role, status, amount, amount_units, is_currency,
       credit, commission_type, commission_value, created_at)
     values (?, ?, ?, ?, 'ok', ?, 'USD', 1, 0, 'fixed', '10', ?)`,
    (r) => {
      const t = Math.floor(r / 2);
      const referrer = r % 2 === 0;
      return [
        programId,
        firstTransaction + t,
        referrer ? customerId(t) : customerId(half + t),
        referrer ? 'referrer' : 'referred',
        REWARD,
        at(t, transactions, 30),
      ];
    },
  );

  const salesOf = (j: number) => Math.floor(transactions / half) + (j < transactions % half ? 1 : 0);
  const counters: [number, string, number][] = [];
  const counter = raw.prepare(
    `insert into entity_counters (program_id, owner_kind, owner_id, metric, value) values (?, 'customer', ?, ?, ?)`,
  );
  for (let from = 0; from < half; from += CHUNK) {
    counters.length = 0;
    for (let j = from; j < Math.min(half, from + CHUNK); j++) {
      const sales = salesOf(j);
      const rewarded = sales > 0 ? 1 : 0;
      counters.push(
        [customerId(j), 'referrals_count', 1],
        [customerId(j), 'signups', 1],
        [customerId(j), 'sales_count', sales],
        [customerId(j), 'paid_accounts', rewarded],
        [customerId(j), 'revenue:usd', sales * SALE],
        [customerId(j), 'balance:usd', rewarded * REWARD],
        [customerId(half + j), 'purchases', sales],
        [customerId(half + j), 'rewards:referrer', rewarded],
        [customerId(half + j), 'rewards:referred', rewarded],
        [customerId(half + j), 'balance:usd', rewarded * REWARD],
      );
    }
    raw.transaction(() => {
      for (const [owner, metric, value] of counters)
        if (value !== 0) counter.run(programId, owner, metric, value);
    })();
  }
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  return { half };
}

const dir = mkdtempSync(join(tmpdir(), 'vouch-referral-bench-'));
const databaseUrl = `sqlite:${join(dir, 'referral.db')}`;
try {
  const program = await createProgram(databaseUrl, 'referral');
  const started = performance.now();
  const { half } = seed(databaseUrl, program.id);
  console.log(
    `seed: ${customers} customers (${half} referred), ${transactions} transactions in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  recordFigure(
    'Refer-a-friend seed',
    'bench seed: customers, transactions',
    `${((performance.now() - started) / 1000).toFixed(1)} s for ${customers.toLocaleString('en-US')} / ${transactions.toLocaleString('en-US')}`,
  );
  const auth = { authorization: `Bearer ${program.token}` };

  const bare = await startBare();
  const bareResult = await load({ url: bare.url, path: '/', duration });
  await bare.stop();

  const vouch = await startVouch({ databaseUrl });
  const every = {
    type: 'fixed',
    value: 10,
    is_currency: true,
    amount_units: 'USD',
    trigger: 'every_purchase',
    limit: null,
  };
  const put = await fetch(`${vouch.url}/v1/program`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ program_settings: { referrer_reward: every, referred_reward: every } }),
  });
  if (!put.ok) throw new Error(`reward settings: ${await put.text()}`);

  const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];
  const referrer = `f${Math.floor(half / 2)}`;
  for (const [name, path] of [
    ['GET /v1/customers/{id}', `/v1/customers/${referrer}`],
    ['GET /v1/customers/{id}/stats', `/v1/customers/${referrer}/stats`],
    ['GET /v1/customers/{id}/balance', `/v1/customers/${referrer}/balance`],
  ] as const) {
    rows.push({
      name,
      result: await load({ url: vouch.url, path, headers: auth, duration }),
      bare: bareResult,
      target: 'p99 ≤ 10 ms',
    });
  }
  rows.push({
    name: 'POST /v1/transactions (two rewards)',
    result: await load({
      url: vouch.url,
      method: 'POST',
      path: '/v1/transactions',
      headers: auth,
      body: JSON.stringify({
        key: 'bench-{{n}}',
        amount: 49.99,
        amount_units: 'USD',
        action: 'sale',
        customer: { id: `r${Math.floor(half / 3)}` },
      }),
      duration,
    }),
    bare: bareResult,
    target: '≥ 2,000 req/s',
  });
  await vouch.stop();
  report(
    `Refer-a-friend on SQLite (${customers} customers, ${transactions} transactions; 50 connections)`,
    rows,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
