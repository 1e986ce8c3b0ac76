import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

/** A refer-a-friend program (10 USD to each side on a first purchase) with the referrer `ref`. */
async function program(server: TestServer, settings: Record<string, unknown> = {}) {
  const p = await server.newProgram('referral');
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: settings },
  });
  assert.equal(put.status, 200, put.text);
  const ref = await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { id: 'ref', key: 'ref-key', email: 'ref@example.com' },
  });
  assert.equal(ref.status, 201, ref.text);
  return p;
}

const referred = (server: TestServer, p: TestProgram<'referral'>, id: string, email: string, extra = {}) =>
  server.request('POST', '/v1/customers', {
    token: p.token,
    body: { id, email, referring_customer: { id: 'ref' }, ...extra },
  });

const buy = async (server: TestServer, p: TestProgram<'referral'>, buyer: string, key: string) => {
  const res = await server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { key, amount: 50, amount_units: 'USD', action: 'sale', customer: { id: buyer } },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
};

const balanceOf = async (server: TestServer, p: TestProgram<'referral'>, id: string) => {
  const res = await server.request('GET', `/v1/customers/${id}/balance`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.balance.currency;
};

/** The `ok` rewards of a customer recounted from the reward rows, in the balance's shape. */
async function recount(server: TestServer, p: TestProgram<'referral'>, id: string) {
  const rows = await server.deps.database.db
    .selectFrom('rewards')
    .innerJoin('customers', 'customers.id', 'rewards.customer_id')
    .select(['rewards.amount', 'rewards.amount_units'])
    .where('rewards.program_id', '=', p.id)
    .where('customers.public_id', '=', id)
    .where('rewards.status', '=', 'ok')
    .execute();
  const total = rows.reduce((sum, row) => sum + Number(row.amount) / 1e6, 0);
  return total === 0 ? [] : [{ amount: total, amount_units: 'USD', is_currency: true }];
}

describeEachDatabase('fraud rules on refer-a-friend', (server) => {
  test('a flagged referred customer: its rewards stay pending and out of every balance; clear credits them', async () => {
    const p = await program(server());
    const res = await referred(server(), p, 'b1', 'b1@mailinator.com');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.referring_customer?.id, 'ref');
    assert.deepEqual(res.body.data.fraud?.rules, [{ rule: 'disposable_email', action: 'flag' }]);
    const flag = itemAt(res.body.data.fraud?.flags ?? []);
    const sale = await buy(server(), p, 'b1', 's1');
    assert.deepEqual(
      sale.rewards.map((r: { status: string }) => r.status),
      ['pending', 'pending'],
    );
    assert.deepEqual(await balanceOf(server(), p, 'ref'), []);
    assert.deepEqual(await balanceOf(server(), p, 'b1'), []);
    const cleared = await server().request('POST', `/v1/fraud/flags/${flag}/clear`, { token: p.token });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual(await balanceOf(server(), p, 'ref'), [
      { amount: 10, amount_units: 'USD', is_currency: true },
    ]);
    assert.deepEqual(await balanceOf(server(), p, 'ref'), await recount(server(), p, 'ref'));
    assert.deepEqual(await balanceOf(server(), p, 'b1'), await recount(server(), p, 'b1'));
  });

  test('confirm voids the held rewards: never in a balance', async () => {
    const p = await program(server());
    const res = await referred(server(), p, 'b2', 'b2@mailinator.com');
    const flag = itemAt(res.body.data.fraud?.flags ?? []);
    await buy(server(), p, 'b2', 's2');
    const confirmed = await server().request('POST', `/v1/fraud/flags/${flag}/confirm`, {
      token: p.token,
      body: {},
    });
    assert.equal(confirmed.status, 200, confirmed.text);
    const statuses = await server()
      .deps.database.db.selectFrom('rewards')
      .select(['status', 'fraud_flag'])
      .where('program_id', '=', p.id)
      .execute();
    assert.deepEqual(
      statuses.map((r) => [r.status, r.fraud_flag]),
      [
        ['voided', null],
        ['voided', null],
      ],
    );
    assert.deepEqual(await balanceOf(server(), p, 'ref'), []);
    assert.deepEqual(await balanceOf(server(), p, 'ref'), await recount(server(), p, 'ref'));
  });

  test('block: the customer is created without its referrer; context is checked like the other creates', async () => {
    const p = await program(server(), { fraud_rules: { disposable_email: 'block' } });
    const res = await referred(server(), p, 'b3', 'b3@yopmail.com');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.referring_customer, null);
    assert.deepEqual(res.body.data.fraud, {
      blocked: true,
      rules: [{ rule: 'disposable_email', action: 'block' }],
      flags: [],
    });
    const fair = await referred(server(), p, 'b4', 'b4@example.com', { context: { ip: '203.0.113.7' } });
    assert.equal(fair.status, 201, fair.text);
    assert.equal(fair.body.data.fraud, undefined);
    const bad = await referred(server(), p, 'b5', 'b5@example.com', { context: { ip: '1'.repeat(65) } });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(Object.keys(bad.error.errors), ['context.ip']);
  });
});
