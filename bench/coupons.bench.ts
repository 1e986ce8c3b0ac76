// Promotion codes on SQLite: redeeming a code (`PUT /v1/promotion-codes` with `redeem: true` and a
// fresh transaction key each time: a redemption row, the code's and the coupon's conditional
// counts, and the answer with the latest redemptions), and a sale carrying a promotion code
// against the same sale without one, as ratios to the bare server. Targets: redeeming ≥ 1,500
// req/s with p99 ≤ 20 ms; a sale with a code within 20 % of a sale without.
// Run: `node --import tsx bench/coupons.bench.ts` (BENCH_DURATION shortens it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgram, load, type ReportRow, report, startBare, startVouch } from './lib.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);

const dir = mkdtempSync(join(tmpdir(), 'vouch-coupons-bench-'));
const databaseUrl = `sqlite:${join(dir, 'coupons.db')}`;
try {
  const program = await createProgram(databaseUrl, 'affiliate');
  const auth = { authorization: `Bearer ${program.token}` };

  const bare = await startBare();
  const bareResult = await load({ url: bare.url, path: '/', duration });
  await bare.stop();

  const vouch = await startVouch({ databaseUrl });
  const send = async (method: string, path: string, body: unknown) => {
    const reply = await fetch(`${vouch.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${await reply.text()}`);
  };
  await send('POST', '/v1/partners', { email: 'bench-partner@example.com', key: 'bp' });
  await send('POST', '/v1/customers', { key: 'bc', partner: { key: 'bp' } });
  await send('POST', '/v1/coupons', {
    uuid_code: 'bench',
    coupon_discount_type: 'percent',
    coupon_discount_amount: 10,
    coupon_duration_type: 'once',
  });
  await send('POST', '/v1/promotion-codes', { coupon_uuid: 'bench', code: 'REDEEM' });
  await send('POST', '/v1/promotion-codes', { coupon_uuid: 'bench', code: 'SALE' });

  const rows: ReportRow[] = [{ name: 'bare node:http, small JSON', result: bareResult }];
  rows.push({
    name: 'PUT /v1/promotion-codes (redeem)',
    result: await load({
      url: vouch.url,
      method: 'PUT',
      path: '/v1/promotion-codes',
      headers: auth,
      body: JSON.stringify({ code: 'REDEEM', redeem: true, transaction_key: 'redeem-{{n}}' }),
      duration,
    }),
    bare: bareResult,
    target: '≥ 1,500 req/s, p99 ≤ 20 ms',
  });
  const plain = await load({
    url: vouch.url,
    method: 'POST',
    path: '/v1/transactions',
    headers: auth,
    body: JSON.stringify({ key: 'plain-{{n}}', amount: 49.99, action: 'sale', customer: { key: 'bc' } }),
    duration,
  });
  rows.push({ name: 'POST /v1/transactions', result: plain, bare: bareResult });
  const withCode = await load({
    url: vouch.url,
    method: 'POST',
    path: '/v1/transactions',
    headers: auth,
    body: JSON.stringify({
      key: 'coded-{{n}}',
      amount: 49.99,
      action: 'sale',
      customer: { key: 'bc' },
      promotion_code: 'SALE',
    }),
    duration,
  });
  rows.push({
    name: 'POST /v1/transactions with promotion_code',
    result: withCode,
    bare: bareResult,
    target: `≥ 0.80× the sale without (${(withCode.rps / plain.rps).toFixed(2)}×)`,
  });
  await vouch.stop();
  report('Promotion codes on SQLite (50 connections)', rows);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
