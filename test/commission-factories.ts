// What the commission, refund and payout tests share: a program with two partners and their
// buyers, a sale, the commission list, and the partner's figures beside their recount.
import assert from 'node:assert/strict';
import { listenToEvents, type TestProgram, type TestServer } from './harness.ts';

/** An affiliate program with partners `pa` (referred by nobody) and `pb`, each with a buyer; it keeps its events. */
export async function commissionProgram(server: TestServer, settings: Record<string, unknown> = {}) {
  const p = await server.newProgram('affiliate');
  await listenToEvents(server, p);
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { commission: { type: 'percent', value: 10 }, ...settings } },
  });
  assert.equal(put.status, 200, put.text);
  const partner = async (key: 'pa' | 'pb') => {
    const made = await server.request('POST', '/v1/partners', {
      token: p.token,
      body: { email: `${key}@example.com`, key },
    });
    assert.equal(made.status, 201, made.text);
    const customer = await server.request('POST', '/v1/customers', {
      token: p.token,
      body: { key: `c-${key}`, partner: { key } },
    });
    assert.equal(customer.status, 201, customer.text);
    return made.body.data.id;
  };
  const partners = { pa: await partner('pa'), pb: await partner('pb') };
  return { p, partners };
}

export const sell = async (
  server: TestServer,
  p: TestProgram<'affiliate'>,
  buyer: string,
  key: string,
  amount: number | string,
  currency = 'USD',
) => {
  const res = await server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { key, amount, amount_units: currency, action: 'sale', customer: { key: buyer } },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
};

export const commissionsOf = async (server: TestServer, p: TestProgram<'affiliate'>, query = '') => {
  const res = await server.request('GET', `/v1/commissions?limit=250${query}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
};

/** The partner's figures as the partner fetch shows them. */
export const figuresOf = async (server: TestServer, p: TestProgram<'affiliate'>, partnerId: string) => {
  const res = await server.request('GET', `/v1/partners/${partnerId}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.commissions;
};

/**
 * The partner's commission figures recounted from the commission rows (of sales that are not
 * archived, and every clawback line), in the partner fetch's shape.
 */
export async function recount(server: TestServer, p: TestProgram<'affiliate'>, partnerId: string) {
  const db = server.deps.database.db;
  const rows = await db
    .selectFrom('rewards')
    .innerJoin('partners', 'partners.id', 'rewards.partner_id')
    .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select([
      'rewards.status',
      'rewards.role',
      'rewards.amount',
      'rewards.amount_units',
      'transactions.archived_at',
    ])
    .where('rewards.program_id', '=', p.id)
    .where('partners.public_id', '=', partnerId)
    .execute();
  type Bucket = 'paid' | 'pending' | 'not_paid';
  const sums: Record<Bucket, Record<string, bigint>> = { paid: {}, pending: {}, not_paid: {} };
  const bucket: Record<string, Bucket> = { review_period: 'pending', ok: 'not_paid', paid: 'paid' };
  for (const row of rows) {
    const b = bucket[row.status];
    // Clawback lines are owed whatever their sale's state.
    if (!b || (row.archived_at !== null && row.role !== 'clawback')) continue;
    const sum = sums[b];
    sum[row.amount_units] = (sum[row.amount_units] ?? 0n) + BigInt(row.amount);
  }
  const list = (b: Bucket) =>
    Object.entries(sums[b])
      .filter(([, v]) => v !== 0n)
      .map(([currency, v]) => ({ currency, amount: Number(v) / 1e6 }))
      .sort((a, b) => a.currency.localeCompare(b.currency));
  const paid = Object.values(sums.paid).reduce((a, b) => a + b, 0n);
  return { paid: Number(paid) / 1e6, pending: list('pending'), not_paid: list('not_paid') };
}
