import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  commissionProgram,
  commissionsOf,
  figuresOf,
  recount,
  sell,
} from '../../../test/commission-factories.ts';
import { describeEachDatabase, recordedEvents, type TestProgram } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

describeEachDatabase('transaction refunds', (server) => {
  const refund = (p: TestProgram, key: string, body?: unknown) =>
    server().request('POST', `/v1/transactions/${key}/refund`, { token: p.token, body });

  test('partial refunds reduce the unpaid commission in proportion and add up; the last voids it', async () => {
    const { p, partners } = await commissionProgram(server(), { commission: { type: 'percent', value: 30 } });
    await sell(server(), p, 'c-pa', 's1', 99.99);
    const first = await refund(p, 's1', { amount: 33.33 });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.refunded_amount, 33.33);
    // 30 % of the 66.66 left: 19.998.
    assert.equal(first.body.data.rewards[0]?.amount, 19.998);
    assert.deepEqual(await figuresOf(server(), p, partners.pa), {
      paid: 0,
      pending: [],
      not_paid: [{ currency: 'USD', amount: 19.998 }],
    });
    const second = await refund(p, 's1', { amount: '33.33' });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.data.rewards[0]?.amount, 9.999);
    const rest = await refund(p, 's1');
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.data.refunded_amount, 99.99);
    const c = itemAt(await commissionsOf(server(), p));
    assert.equal(c.status, 'voided');
    assert.deepEqual(await figuresOf(server(), p, partners.pa), { paid: 0, pending: [], not_paid: [] });
    assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
    const again = await refund(p, 's1');
    assert.equal(again.status, 422);
    assert.deepEqual(again.error.errors, { amount: ['The transaction has already been refunded in full.'] });
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'transaction.refunded').length, 3);
    assert.equal(events.filter((e) => e === 'commission.voided').length, 1);
    const fetched = await server().request('GET', '/v1/transactions/s1', { token: p.token });
    assert.equal(fetched.body.data.refunded_amount, 99.99);
    const overview = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(overview.status, 200);
  });

  test('a paid commission gets a clawback line; the partner’s unpaid figure goes below zero', async () => {
    const { p, partners } = await commissionProgram(server());
    const res = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: { key: 'paid-1', amount: 200, action: 'sale', rewarded: true, customer: { key: 'c-pa' } },
    });
    assert.equal(res.status, 200, res.text);
    const refunded = await refund(p, 'paid-1', { amount: 50 });
    assert.equal(refunded.status, 200, refunded.text);
    const list = await commissionsOf(server(), p);
    assert.deepEqual(
      list.map((c) => [c.kind, c.status, c.amount]),
      [
        ['clawback', 'approved', -5],
        ['sale', 'paid', 20],
      ],
    );
    assert.deepEqual(await figuresOf(server(), p, partners.pa), {
      paid: 20,
      pending: [],
      not_paid: [{ currency: 'USD', amount: -5 }],
    });
    assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
    // Archiving the refunded sale takes back what is left of it; its clawback line is owed whatever
    // the sale's state, so it stays.
    assert.equal(
      (await server().request('POST', '/v1/transactions/paid-1/archive', { token: p.token })).status,
      200,
    );
    assert.deepEqual(await figuresOf(server(), p, partners.pa), {
      paid: 0,
      pending: [],
      not_paid: [{ currency: 'USD', amount: -5 }],
    });
    assert.equal(
      (await server().request('POST', '/v1/transactions/paid-1/revoke-archive', { token: p.token })).status,
      200,
    );
    assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
  });

  test('bad refunds: more than the sale, negative, non-numeric, zero, unknown or another program’s sale', async () => {
    const { p } = await commissionProgram(server());
    await sell(server(), p, 'c-pa', 's1', 100);
    const cases: [unknown, string][] = [
      [{ amount: 100.01 }, 'The amount must not be greater than 100 (what is left to refund).'],
      [{ amount: -1 }, 'The amount field must be at least 0.'],
      [{ amount: 'lots' }, 'The amount field must be a number.'],
      [{ amount: 0 }, 'The amount field must be greater than 0.'],
      [{ amount: 1.0000001 }, 'The amount field must not have more than 6 decimal places.'],
    ];
    for (const [body, message] of cases) {
      const res = await refund(p, 's1', body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.error.errors, { amount: [message] }, JSON.stringify(body));
    }
    const tx = await server().request('GET', '/v1/transactions/s1', { token: p.token });
    assert.equal(tx.body.data.refunded_amount, 0);
    assert.equal(tx.body.data.rewards[0]?.amount, 10);
    assert.equal((await refund(p, 'nope')).status, 404);
    const other = await server().newProgram('affiliate');
    assert.equal((await refund(other, 's1')).status, 404);
    await refund(p, 's1', { amount: 60 });
    const over = await refund(p, 's1', { amount: 41 });
    assert.equal(over.status, 422);
    assert.deepEqual(over.error.errors, {
      amount: ['The amount must not be greater than 40 (what is left to refund).'],
    });
  });

  test('refer-a-friend: the balance goes down by the same rule', async () => {
    const p = await server().newProgram('referral');
    const post = <const P extends string>(path: P, body: unknown) =>
      server().request('POST', path, { token: p.token, body });
    await post('/v1/customers', { id: 'ref', key: 'ref-key', email: 'ref@example.com' });
    await post('/v1/customers', {
      id: 'buyer',
      email: 'buyer@example.com',
      referring_customer: { id: 'ref' },
    });
    const sale = await post('/v1/transactions', {
      key: 'r1',
      amount: 80,
      amount_units: 'USD',
      action: 'sale',
      customer: { id: 'buyer' },
    });
    assert.equal(sale.status, 200, sale.text);
    const balance = async (id: string) =>
      (await server().request('GET', `/v1/customers/${id}/balance`, { token: p.token })).body.data.balance
        .currency;
    assert.equal((await balance('ref'))[0]?.amount, 10);
    const half = await refund(p, 'r1', { amount: 40 });
    assert.equal(half.status, 200, half.text);
    assert.equal(half.body.data.refunded_amount, 40);
    assert.equal((await balance('ref'))[0]?.amount, 5);
    assert.equal((await balance('buyer'))[0]?.amount, 5);
    const rest = await refund(p, 'r1', {});
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual(await balance('ref'), [{ amount: 0, amount_units: 'USD', is_currency: true }]);
    assert.equal((await refund(p, 'r1', { amount: 1 })).status, 422);
  });

  test('concurrent refunds of one sale never refund more than it', async () => {
    const { p, partners } = await commissionProgram(server());
    await sell(server(), p, 'c-pa', 'race', 100);
    const results = await Promise.all(Array.from({ length: 10 }, () => refund(p, 'race', { amount: 30 })));
    assert.equal(results.filter((r) => r.status === 200).length, 3);
    assert.equal(results.filter((r) => r.status === 422).length, 7);
    const tx = await server().request('GET', '/v1/transactions/race', { token: p.token });
    assert.equal(tx.body.data.refunded_amount, 90);
    assert.equal(tx.body.data.rewards[0]?.amount, 1);
    assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
  });
});
