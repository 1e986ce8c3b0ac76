import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { microsToNumber } from '../../core/money.ts';
import { seedAffiliate } from './seed.ts';

describeEachDatabase('vouch seed', (server) => {
  test('seeded partners show the figures their rows add up to, and the program keeps working', async () => {
    const result = (await seedAffiliate(server().deps, {
      partners: 7,
      customers: 50,
      transactions: 180,
    })) as unknown as {
      program: { id: number };
      api_key: { token: string };
    };
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
    const customer = await server().request('GET', '/v1/customers?limit=1', { token });
    const sale = await server().request('POST', '/v1/transactions', {
      token,
      body: { amount: 10, action: 'sale', customer: { key: customer.body.data[0].key } },
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
