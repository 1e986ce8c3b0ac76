import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { present } from '../../core/present.ts';
import type { ProgramType } from '../../core/program-types.ts';

/** An affiliate program with partners `ann` and `bob`, a customer `ck` of ann's, and a coupon `c`. */
async function setup(server: TestServer) {
  const p = await server.newProgram('affiliate');
  await listenToEvents(server, p);
  const ids: Record<string, string> = {};
  for (const key of ['ann', 'bob']) {
    const partner = await server.request('POST', '/v1/partners', {
      token: p.token,
      body: { email: `${key}@example.com`, key },
    });
    assert.equal(partner.status, 201, partner.text);
    ids[key] = partner.body.data.id;
  }
  const customer = await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key: 'ck', partner: { key: 'ann' } },
  });
  assert.equal(customer.status, 201, customer.text);
  const coupon = await server.request('POST', '/v1/coupons', {
    token: p.token,
    body: {
      uuid_code: 'c',
      coupon_discount_type: 'percent',
      coupon_discount_amount: 10,
      coupon_duration_type: 'once',
    },
  });
  assert.equal(coupon.status, 200, coupon.text);
  return { p, ann: present(ids.ann, "ann's id"), bob: present(ids.bob, "bob's id") };
}

async function newCode(server: TestServer, p: TestProgram, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/promotion-codes', {
    token: p.token,
    body: { coupon_uuid: 'c', ...body },
  });
  assert.equal(reply.status, 200, reply.text);
}

const sell = <K extends ProgramType>(server: TestServer, p: TestProgram<K>, body: Record<string, unknown>) =>
  server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { action: 'sale', amount: 100, customer: { key: 'ck' }, ...body },
  });

const codeOf = async (server: TestServer, p: TestProgram, code: string) =>
  (await server.request('GET', `/v1/promotion-codes/${code}`, { token: p.token })).body.data;

const transactionCount = async (server: TestServer, p: TestProgram) =>
  (await server.request('GET', '/v1/transactions?limit=250', { token: p.token })).body.data.length;

describeEachDatabase('transactions with a promotion code', (server) => {
  test('the code is redeemed with the sale, under the sale key; a replay redeems nothing more', async () => {
    const { p } = await setup(server());
    await newCode(server(), p, { code: 'SALE10' });
    const sale = await sell(server(), p, { key: 'order-1', promotion_code: 'sale10' });
    assert.equal(sale.status, 200, sale.text);
    let code = await codeOf(server(), p, 'SALE10');
    assert.equal(code.times_redeemed, 1);
    assert.equal(code.additional_info.redemptions[0]?.transaction_key, 'order-1');
    const replay = await sell(server(), p, { key: 'order-1', promotion_code: 'SALE10' });
    assert.equal(replay.status, 200, replay.text);
    code = await codeOf(server(), p, 'SALE10');
    assert.equal(code.times_redeemed, 1);
    const otherCode = await sell(server(), p, { key: 'order-1' });
    assert.equal(otherCode.status, 422, 'the same key without the code is another request');
    assert.deepEqual(otherCode.error.errors, { key: ['The key has already been taken.'] });
    const aliased = await sell(server(), p, { key: 'order-2', discount_code: 'SALE10' });
    assert.equal(aliased.status, 200, aliased.text);
    assert.equal((await codeOf(server(), p, 'SALE10')).times_redeemed, 2);
  });

  test('a code that cannot be redeemed: 422 on its field, and nothing is written', async () => {
    const { p, ann } = await setup(server());
    await newCode(server(), p, { code: 'ONE', redemption_times_status: true, redemption_times_value: 1 });
    assert.equal((await sell(server(), p, { key: 'a', promotion_code: 'ONE' })).status, 200);
    const before = (await server().request('GET', `/v1/partners/${ann}`, { token: p.token })).body.data
      .referrals;
    const eventsBefore = (await recordedEvents(server(), p)).length;

    const spent = await sell(server(), p, { key: 'b', promotion_code: 'ONE' });
    assert.equal(spent.status, 422);
    assert.deepEqual(spent.error.errors, {
      promotion_code: ['The promotion code has reached its redemption limit of 1.'],
    });
    const notText = await sell(server(), p, { key: 'c', promotion_code: 12 });
    assert.deepEqual(notText.error.errors, {
      promotion_code: ['The promotion code field must be a string.'],
    });
    const unknown = await sell(server(), p, { key: 'c', discount_code: 'NOPE' });
    assert.deepEqual(unknown.error.errors, { discount_code: ['The selected discount code is invalid.'] });
    const newBuyer = await sell(server(), p, {
      key: 'd',
      promotion_code: 'ONE',
      customer: { key: 'fresh', partner: { key: 'ann' } },
      options: { create_customer: true },
    });
    assert.equal(newBuyer.status, 422);

    assert.equal(await transactionCount(server(), p), 1);
    for (const key of ['b', 'c', 'd']) {
      assert.equal(
        (await server().request('GET', `/v1/transactions/${key}`, { token: p.token })).status,
        404,
      );
    }
    assert.equal((await server().request('GET', '/v1/customers/fresh', { token: p.token })).status, 404);
    const after = (await server().request('GET', `/v1/partners/${ann}`, { token: p.token })).body.data
      .referrals;
    assert.deepEqual(after, before);
    assert.equal((await recordedEvents(server(), p)).length, eventsBefore);
    assert.equal((await codeOf(server(), p, 'ONE')).times_redeemed, 1);
  });

  test('a new customer without a partner gets the partner of a code limited to exactly one', async () => {
    const { p, bob } = await setup(server());
    await newCode(server(), p, {
      code: 'BOB',
      limit_to_specific_partner: true,
      coupon_specific_partners: [{ id: bob, full_name: 'Bob' }],
    });
    const sale = await sell(server(), p, {
      key: 'attributed',
      promotion_code: 'BOB',
      customer: { key: 'walk-in', email: 'walk-in@example.com' },
      options: { create_customer: true },
    });
    assert.equal(sale.status, 200, sale.text);
    assert.equal(sale.body.data.partner, bob);
    assert.equal(sale.body.data.rewards[0]?.partner, bob);
    const customer = await server().request('GET', '/v1/customers/walk-in', { token: p.token });
    assert.equal(customer.body.data.partner, bob);
    const figures = (await server().request('GET', `/v1/partners/${bob}`, { token: p.token })).body.data;
    assert.equal(figures.referrals.sales_count, 1);

    // Limited to two partners, the code names none: the partner is required as before.
    await newCode(server(), p, {
      code: 'TWO',
      limit_to_specific_partner: true,
      coupon_specific_partners: [{ id: bob }, { id: (await setupPartner(server(), p)) as string }],
    });
    const unnamed = await sell(server(), p, {
      key: 'unnamed',
      promotion_code: 'TWO',
      customer: { key: 'walk-in-2' },
      options: { create_customer: true },
    });
    assert.equal(unnamed.status, 422);
    assert.deepEqual(unnamed.error.errors, {
      'customer.partner': ['The customer.partner field is required.'],
    });
  });

  test('partner and customer limits are checked against the sale', async () => {
    const { p, bob } = await setup(server());
    await newCode(server(), p, {
      code: 'BOBONLY',
      limit_to_specific_partner: true,
      coupon_specific_partners: [{ id: bob }],
    });
    const other = await sell(server(), p, { key: 'x', promotion_code: 'BOBONLY' });
    assert.equal(other.status, 422);
    assert.deepEqual(other.error.errors, {
      promotion_code: ['The promotion code is limited to other partners.'],
    });
    await newCode(server(), p, {
      code: 'CKONLY',
      limit_to_specific_customer: true,
      coupon_specific_customers: [{ id: 'ck' }],
    });
    assert.equal((await sell(server(), p, { key: 'y', promotion_code: 'CKONLY' })).status, 200);
    const stranger = await sell(server(), p, {
      key: 'z',
      promotion_code: 'CKONLY',
      customer: { key: 'stranger', partner: { key: 'ann' } },
      options: { create_customer: true },
    });
    assert.equal(stranger.status, 422);
    assert.deepEqual(stranger.error.errors, {
      promotion_code: ['The promotion code is limited to other customers.'],
    });
  });

  test('first_time_order refuses a buyer with an earlier sale; minimum_order_value is compared with the amount', async () => {
    const { p } = await setup(server());
    await newCode(server(), p, { code: 'FIRST', first_time_order: true });
    await newCode(server(), p, { code: 'MIN50', minimum_order_status: 'on', minimum_order_value: 50 });
    assert.equal((await sell(server(), p, { key: 'f1', promotion_code: 'FIRST' })).status, 200);
    const second = await sell(server(), p, { key: 'f2', promotion_code: 'FIRST' });
    assert.equal(second.status, 422);
    assert.deepEqual(second.error.errors, {
      promotion_code: ['The promotion code is valid for first-time orders only.'],
    });
    const small = await sell(server(), p, { key: 'm1', amount: 49.99, promotion_code: 'MIN50' });
    assert.equal(small.status, 422);
    assert.deepEqual(small.error.errors, {
      promotion_code: ['The promotion code requires an order of at least 50.'],
    });
    assert.equal((await sell(server(), p, { key: 'm2', amount: '50', promotion_code: 'MIN50' })).status, 200);
  });

  test('the multiple form: a refused code names its item and nothing of the request is written', async () => {
    const { p } = await setup(server());
    await newCode(server(), p, { code: 'ONCE', redemption_times_status: true, redemption_times_value: 1 });
    const reply = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: {
        customer: { key: 'ck' },
        transactions: [
          { key: 't1', amount: 10, action: 'sale', promotion_code: 'ONCE' },
          { key: 't2', amount: 10, action: 'sale', promotion_code: 'ONCE' },
        ],
      },
    });
    assert.equal(reply.status, 422, reply.text);
    assert.deepEqual(Object.keys(reply.error.errors), ['transactions.1.promotion_code']);
    assert.equal(await transactionCount(server(), p), 0);
    assert.equal((await codeOf(server(), p, 'ONCE')).times_redeemed, 0);
  });

  test('20 concurrent sales on a code limited to 5: exactly 5 sales are stored', async () => {
    const { p } = await setup(server());
    await newCode(server(), p, { code: 'FIVE', redemption_times_status: true, redemption_times_value: 5 });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => sell(server(), p, { key: `race-${i}`, promotion_code: 'FIVE' })),
    );
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 422).length, 15);
    assert.equal(await transactionCount(server(), p), 5);
    assert.equal((await codeOf(server(), p, 'FIVE')).times_redeemed, 5);
  });

  test('a refer-a-friend sale redeems a code too', async () => {
    const p = await server().newProgram('referral');
    const referrer = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { id: 'ref', email: 'ref@example.com' },
    });
    assert.equal(referrer.status, 201, referrer.text);
    const friend = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { id: 'friend', email: 'friend@example.com', referring_customer: { id: 'ref' } },
    });
    assert.equal(friend.status, 201, friend.text);
    await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: {
        uuid_code: 'c',
        coupon_discount_type: 'static',
        coupon_discount_amount: 5,
        coupon_duration_type: 'once',
      },
    });
    await newCode(server(), p, { code: 'FRIEND', first_time_order: true });
    const sale = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: { key: 'rf-1', amount: 20, action: 'sale', customer: { id: 'friend' }, promotion_code: 'FRIEND' },
    });
    assert.equal(sale.status, 200, sale.text);
    assert.equal((await codeOf(server(), p, 'FRIEND')).times_redeemed, 1);
    const again = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: { key: 'rf-2', amount: 20, action: 'sale', customer: { id: 'friend' }, promotion_code: 'FRIEND' },
    });
    assert.equal(again.status, 422);
  });
});

async function setupPartner(server: TestServer, p: TestProgram) {
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'cy@example.com', key: 'cy' },
  });
  assert.equal(partner.status, 201, partner.text);
  return partner.body.data.id;
}
