import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

describeEachDatabase('refer-a-friend customer stats and referrals', (server) => {
  const call = <const M extends string, const P extends string>(
    p: TestProgram,
    method: M,
    path: P,
    body?: unknown,
  ) => server().request(method, path, { token: p.token, body });

  test('stats count signups, sales, paid accounts and revenue per currency, with the links', async () => {
    const p = await server().newProgram('referral', { website: 'https://w.example' });
    await call(p, 'POST', '/v1/customers', { id: 'ref', key: 'ref-key', email: 'ref@example.com' });
    for (const id of ['f1', 'f2', 'f3']) {
      await call(p, 'POST', '/v1/customers', {
        id,
        email: `${id}@example.com`,
        referring_customer: { id: 'ref' },
      });
    }
    const sale = (id: string, amount: number, units: string) =>
      call(p, 'POST', '/v1/transactions', { amount, amount_units: units, action: 'sale', customer: { id } });
    await sale('f1', 10, 'USD');
    await sale('f1', 5.5, 'USD');
    await sale('f2', 7, 'EUR');
    const res = await call(p, 'GET', '/v1/customers/ref/stats');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.customer.id, 'ref');
    assert.deepEqual(res.body.data.referrals, {
      clicks: 0,
      signups: 3,
      revenue: [
        { currency: 'EUR', amount: 7 },
        { currency: 'USD', amount: 15.5 },
      ],
      sales_count: 3,
      paid_accounts: 2,
    });
    assert.deepEqual(
      res.body.data.ref_links.map((l) => l.url),
      ['https://w.example?ref=ref-key'],
    );
  });

  test('referrals list the customers it referred as list entries, archived ones left out', async () => {
    const p = await server().newProgram('referral');
    await call(p, 'POST', '/v1/customers', { id: 'ref', email: 'ref@example.com' });
    await call(p, 'POST', '/v1/customers', {
      id: 'a',
      email: 'a@example.com',
      referring_customer: { id: 'ref' },
    });
    await call(p, 'POST', '/v1/customers', {
      id: 'b',
      email: 'b@example.com',
      referring_customer: { id: 'ref' },
    });
    await call(p, 'POST', '/v1/customers', { id: 'c', email: 'c@example.com' });
    const res = await call(p, 'GET', '/v1/customers/ref/referrals');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'status']);
    assert.deepEqual(
      res.body.data.map((c) => c.id),
      ['b', 'a'],
    );
    assert.equal('key' in itemAt(res.body.data), false);
    await call(p, 'POST', '/v1/customers/b/archive');
    const after = await call(p, 'GET', '/v1/customers/ref/referrals');
    assert.deepEqual(
      after.body.data.map((c) => c.id),
      ['a'],
    );
    assert.deepEqual((await call(p, 'GET', '/v1/customers/c/referrals')).body.data, []);
  });

  test('archive and revoke-archive answer {status: 1} and 404 on an unknown customer', async () => {
    const p = await server().newProgram('referral');
    await call(p, 'POST', '/v1/customers', { id: 'x', email: 'x@example.com' });
    assert.deepEqual((await call(p, 'POST', '/v1/customers/x/archive')).body, { status: 1 });
    assert.deepEqual((await call(p, 'POST', '/v1/customers/x/archive')).body, { status: 1 });
    assert.deepEqual((await call(p, 'POST', '/v1/customers/x/revoke-archive')).body, { status: 1 });
    assert.equal((await call(p, 'POST', '/v1/customers/nobody/archive')).status, 404);
    assert.equal((await call(p, 'GET', '/v1/customers/nobody/stats')).status, 404);
  });

  test('refer-a-friend-only routes answer 403 to affiliate programs', async () => {
    const p = await server().newProgram('affiliate');
    for (const path of ['/v1/customers/x/stats', '/v1/customers/x/balance', '/v1/customers/x/referrals']) {
      const res = await call(p, 'GET', path);
      assert.equal(res.status, 403, path);
      assert.equal(res.error.message, 'This endpoint is not available for Affiliate programs.');
    }
  });
});
