import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  connect,
  deliverOk,
  type Fixture,
  fixture,
  transactionOf,
  unique,
} from '../../../test/billing-events.ts';
import { commissionsOf } from '../../../test/commission-factories.ts';
import { describeEachDatabase, type TestServer } from '../../../test/harness.ts';

async function paddleProgram(server: TestServer) {
  const p = await server.newProgram('affiliate');
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { commission: { type: 'percent', value: 10 } } },
  });
  assert.equal(put.status, 200, put.text);
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'pa@example.com', key: 'pa' },
  });
  assert.equal(partner.status, 201, partner.text);
  await connect(server, p, 'paddle');
  return { p, partnerId: partner.body.data.id };
}

function completed(overrides: { currency?: string; total?: string; tax?: string } = {}) {
  const event = fixture('paddle-transaction-completed');
  const id = unique();
  event.event_id = `evt_${id}`;
  event.data.id = `txn_${id}`;
  event.data.customer_id = `ctm_${id}`;
  event.data.custom_data = { vouch_referral: 'pa' };
  if (overrides.currency) {
    event.data.currency_code = overrides.currency;
    event.data.details.totals.currency_code = overrides.currency;
  }
  if (overrides.total) event.data.details.totals.total = overrides.total;
  if (overrides.tax) event.data.details.totals.tax = overrides.tax;
  return event;
}

function adjustment(
  name: 'paddle-adjustment-created' | 'paddle-adjustment-updated',
  sale: Fixture<'paddle-transaction-completed'>,
  adjustmentId: string,
) {
  const event = fixture(name);
  event.event_id = `evt_${unique()}`;
  event.data.id = adjustmentId;
  event.data.transaction_id = sale.data.id;
  event.data.customer_id = sale.data.customer_id;
  return event;
}

describeEachDatabase('Paddle events', (server) => {
  test('transaction.completed with custom_data is an attributed sale of total minus tax', async () => {
    const { p, partnerId } = await paddleProgram(server());
    const sale = completed();
    const done = await deliverOk(server(), p, 'paddle', sale);
    assert.equal(done.type, 'transaction.completed');
    const stored = (await transactionOf(server(), p, sale.data.id)).body.data;
    assert.equal(stored.amount, 30);
    assert.equal(stored.partner, partnerId);
    assert.equal(stored.customer, sale.data.customer_id);
    assert.equal(stored.rewards[0]?.amount, 3);
  });

  test('a refund waits for approval, is applied once without tax, and a later event of it changes nothing', async () => {
    const { p } = await paddleProgram(server());
    const sale = completed();
    await deliverOk(server(), p, 'paddle', sale);
    const adjustmentId = `adj_${unique()}`;
    const created = await deliverOk(
      server(),
      p,
      'paddle',
      adjustment('paddle-adjustment-created', sale, adjustmentId),
      'ignored',
    );
    assert.match(created.reason ?? '', /pending_approval, not approved/);
    await deliverOk(server(), p, 'paddle', adjustment('paddle-adjustment-updated', sale, adjustmentId));
    let stored = (await transactionOf(server(), p, sale.data.id)).body.data;
    assert.equal(stored.refunded_amount, 10);
    assert.equal(stored.rewards[0]?.amount, 2);
    await deliverOk(
      server(),
      p,
      'paddle',
      adjustment('paddle-adjustment-updated', sale, adjustmentId),
      'ignored',
    );
    stored = (await transactionOf(server(), p, sale.data.id)).body.data;
    assert.equal(stored.refunded_amount, 10);
  });

  test('zero- and three-decimal currencies are exact', async () => {
    const { p } = await paddleProgram(server());
    const won = completed({ currency: 'KRW', total: '33000', tax: '3000' });
    const rial = completed({ currency: 'OMR', total: '10001', tax: '0' });
    await deliverOk(server(), p, 'paddle', won);
    await deliverOk(server(), p, 'paddle', rial);
    assert.equal((await transactionOf(server(), p, won.data.id)).body.data.amount, 30000);
    const omr = (await transactionOf(server(), p, rial.data.id)).body.data;
    assert.equal(omr.amount, 10.001);
    assert.equal(omr.rewards[0]?.amount, 1.0001);
  });

  test('customer.created with custom_data makes the customer; its later sale is credited by it', async () => {
    const { p, partnerId } = await paddleProgram(server());
    const event = fixture('paddle-customer-created');
    const customer = `ctm_${unique()}`;
    event.event_id = `evt_${unique()}`;
    event.data.id = customer;
    event.data.custom_data = { vouch_referral: 'pa' };
    await deliverOk(server(), p, 'paddle', event);
    const sale = completed();
    sale.data.customer_id = customer;
    // A sale without custom_data: Paddle sends null.
    Object.assign(sale.data, { custom_data: null });
    const done = await deliverOk(server(), p, 'paddle', sale);
    assert.match(done.reason ?? '', /credited by customer/);
    assert.equal((await transactionOf(server(), p, sale.data.id)).body.data.partner, partnerId);
    assert.equal((await commissionsOf(server(), p)).length, 1);
  });
});

describeEachDatabase('Paddle events in refer-a-friend programs', (server) => {
  test('a sale credits the referring customer named by custom_data', async () => {
    const p = await server().newProgram('referral');
    const referrer = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { email: 'referrer@example.com', id: 'referrer-1', key: 'REFKEY' },
    });
    assert.equal(referrer.status, 201, referrer.text);
    await connect(server(), p, 'paddle');
    const sale = completed();
    sale.data.custom_data = { vouch_referral: 'REFKEY' };
    sale.data.customer = { email: 'friend@example.com' };
    await deliverOk(server(), p, 'paddle', sale);
    const stored = await transactionOf(server(), p, sale.data.id);
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.data.referred_customer, sale.data.customer_id);
    assert.equal(stored.body.data.customer, 'referrer-1');
  });
});
