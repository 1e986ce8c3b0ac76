import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type AnswerOf, describeEachDatabase, startServer } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { microsToNumber } from '../../core/money.ts';
import { SqliteDatabase as BetterSqlite } from '../../db/sqlite-driver.ts';
import { seedAffiliate } from './seed-affiliate.ts';

describeEachDatabase('vouch seed', (server) => {
  test('seeded partners show the figures their rows add up to, and the program keeps working', async () => {
    const result = await seedAffiliate(server().deps, {
      partners: 7,
      customers: 50,
      transactions: 180,
    });
    assert.ok('api_key' in result, 'a new program comes with its first key');
    const token = result.api_key.token;
    const programId = result.program.id;
    const db = server().deps.database.db;
    const partners = await db
      .selectFrom('partners')
      .select(['id', 'public_id'])
      .where('program_id', '=', programId)
      .execute();
    assert.equal(partners.length, 7);
    for (const partner of partners.slice(0, 3)) {
      const sales = await db
        .selectFrom('transactions')
        .select(['amount', 'customer_id'])
        .where('program_id', '=', programId)
        .where('partner_id', '=', partner.id)
        .execute();
      const commissions = await db
        .selectFrom('rewards')
        .select('amount')
        .where('program_id', '=', programId)
        .where('partner_id', '=', partner.id)
        .execute();
      const signups = await db
        .selectFrom('customers')
        .select('id')
        .where('program_id', '=', programId)
        .where('partner_id', '=', partner.id)
        .execute();
      const res = await server().request('GET', `/v1/partners/${partner.public_id}`, { token });
      assert.equal(res.status, 200, res.text);
      const revenue = sales.reduce((sum, s) => sum + Number(s.amount), 0);
      const commission = commissions.reduce((sum, c) => sum + Number(c.amount), 0);
      assert.deepEqual(res.body.data.referrals, {
        clicks: 0,
        signups: signups.length,
        revenue: [{ currency: 'USD', amount: microsToNumber(revenue) }],
        sales_count: sales.length,
        paid_accounts: new Set(sales.map((s) => s.customer_id)).size,
      });
      assert.deepEqual(res.body.data.commissions.not_paid, [
        { currency: 'USD', amount: microsToNumber(commission) },
      ]);
    }
    const list = await server().request('GET', '/v1/partners?limit=3', { token });
    assert.equal(list.body.data.length, 3);
    const customer = await server().request<AnswerOf<'GET', '/v1/customers', 'affiliate'>>(
      'GET',
      '/v1/customers?limit=1',
      { token },
    );
    const sale = await server().request('POST', '/v1/transactions', {
      token,
      body: { amount: 10, action: 'sale', customer: { key: itemAt(customer.body.data).key } },
    });
    assert.equal(sale.status, 200, sale.text);
    const partner = await server().request('POST', '/v1/partners', {
      token,
      body: { email: 'after@example.com' },
    });
    assert.equal(partner.status, 201, partner.text);
    const overview = (await server().request('GET', '/v1/program', { token })).body.data;
    // The overview counts the last 30 days; seeded sales spread over them.
    assert.ok(overview.total_sales > 150);
  });
});

// On a SQLite file the seed sets the tables' indexes aside and builds them after the rows, in one
// transaction: the database must end with exactly the indexes it had and pass its integrity check.
test('a seed into a SQLite file keeps every index and the figures, also seeded twice into one program', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-seed-'));
  const server = await startServer({
    dialect: 'sqlite',
    database: { url: `sqlite:${join(dir, 'seed.db')}` },
  });
  try {
    const raw = () => new BetterSqlite(join(dir, 'seed.db'), { readonly: true });
    const indexes = () => {
      const db = raw();
      try {
        return db.prepare("select name, sql from sqlite_master where type = 'index' order by name").all();
      } finally {
        db.close();
      }
    };
    const before = indexes();
    const first = await seedAffiliate(server.deps, {
      partners: 5,
      customers: 40,
      transactions: 120,
    });
    await seedAffiliate(server.deps, {
      programId: first.program.id,
      partners: 3,
      customers: 20,
      transactions: 60,
    });
    assert.deepEqual(indexes(), before);
    const db = raw();
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const plan = db
        .prepare('explain query plan select id from transactions where program_id = ? and customer_id = ?')
        .all(1, 1) as { detail: string }[];
      assert.match(plan.map((row) => row.detail).join(' '), /transactions_customer/);
    } finally {
      db.close();
    }
    assert.ok('api_key' in first, 'a new program comes with its first key');
    const token = first.api_key.token;
    const partners = await server.request('GET', '/v1/partners?limit=100', { token });
    assert.equal(partners.body.data.length, 8);
    const figures = await Promise.all(
      partners.body.data.map(
        async (p) => (await server.request('GET', `/v1/partners/${p.id}`, { token })).body.data.referrals,
      ),
    );
    assert.equal(
      figures.reduce((sum, f) => sum + f.signups, 0),
      60,
    );
    const sales = figures.reduce((sum, f) => sum + f.sales_count, 0);
    assert.equal(sales, 180);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
