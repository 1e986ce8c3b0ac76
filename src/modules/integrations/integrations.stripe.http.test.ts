import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  chargeRefunded,
  connect,
  deliver,
  deliverOk,
  eventsLog,
  fixture,
  invoicePaid,
  transactionOf,
  unique,
} from '../../../test/billing-events.ts';
import { commissionsOf, figuresOf, recount } from '../../../test/commission-factories.ts';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { inParallel } from '../../../test/in-parallel.ts';
import { itemAt } from '../../../test/items.ts';

/** An affiliate program paying `commission`, connected to Stripe, with partner `pa`. */
async function stripeProgram(
  server: TestServer,
  commission: Record<string, unknown> = { type: 'percent', value: 10 },
) {
  const p = await server.newProgram('affiliate');
  await listenToEvents(server, p);
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { commission } },
  });
  assert.equal(put.status, 200, put.text);
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'pa@example.com', key: 'pa' },
  });
  assert.equal(partner.status, 201, partner.text);
  await connect(server, p, 'stripe');
  return { p, partnerId: partner.body.data.id };
}

/** A subscription checkout by a new Stripe customer carrying `client_reference_id`. */
function checkout(customer: string, referral: string | null) {
  const event = fixture('stripe-checkout-session-completed');
  event.id = `evt_cs_${unique()}`;
  event.data.object.customer = customer;
  event.data.object.customer_details.email = `${customer.toLowerCase()}@example.com`;
  // Stripe sends null when the checkout carried no referral.
  Object.assign(event.data.object, { client_reference_id: referral });
  return event;
}

const transactionCount = async (server: TestServer, p: TestProgram<'affiliate'>) =>
  (await server.request('GET', '/v1/transactions?limit=250', { token: p.token })).body.data.length;

describeEachDatabase('Stripe events', (server) => {
  test('a checkout with client_reference_id makes the customer; its invoice is a sale with the commission', async () => {
    const { p, partnerId } = await stripeProgram(server());
    const customer = `cus_${unique()}`;
    const created = await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    assert.match(created.reason ?? '', /Customer created, credited by referral pa/);
    const buyer = await server().request('GET', `/v1/customers/${customer}`, { token: p.token });
    assert.equal(buyer.status, 200, buyer.text);
    assert.equal(buyer.body.data.partner, partnerId);
    assert.equal(buyer.body.data.email, `${customer.toLowerCase()}@example.com`);

    const invoice = invoicePaid(customer, 2900);
    await deliverOk(server(), p, 'stripe', invoice);
    const sale = await transactionOf(server(), p, invoice.data.object.id);
    assert.equal(sale.status, 200, sale.text);
    assert.equal(sale.body.data.amount, 29);
    assert.equal(sale.body.data.amount_units, 'USD');
    assert.equal(sale.body.data.partner, partnerId);
    assert.equal(sale.body.data.rewards[0]?.amount, 2.9);
    const productData = itemAt(sale.body.data.rewards).product_type_data;
    assert.ok(!Array.isArray(productData), sale.text);
    assert.equal(productData.product_id, 'price_1QProMonthly');
    // The same events as a sale through the API, and the same figures.
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.ok(events.includes('customer.created') && events.includes('transaction.created'), events.join());
    assert.deepEqual(await figuresOf(server(), p, partnerId), await recount(server(), p, partnerId));
  });

  test('a payment-mode checkout is a sale of its own, keyed by the payment intent, without tax', async () => {
    const { p, partnerId } = await stripeProgram(server());
    const event = fixture('stripe-checkout-session-completed-payment');
    event.data.object.client_reference_id = 'pa';
    await deliverOk(server(), p, 'stripe', event);
    const sale = await transactionOf(server(), p, 'pi_3QOneOffPayment0001');
    assert.equal(sale.status, 200, sale.text);
    assert.equal(sale.body.data.amount, 50);
    assert.equal(sale.body.data.partner, partnerId);
  });

  test('three monthly renewals within a 12-month duration each earn; a renewal past it records the sale only', async () => {
    const { p } = await stripeProgram(server(), {
      type: 'percent',
      value: 20,
      duration: 'months',
      duration_value: 12,
    });
    const customer = `cus_${unique()}`;
    await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    const invoices = [invoicePaid(customer, 2900), invoicePaid(customer, 2900), invoicePaid(customer, 2900)];
    for (const [i, invoice] of invoices.entries()) {
      invoice.data.object.billing_reason = i === 0 ? 'subscription_create' : 'subscription_cycle';
      await deliverOk(server(), p, 'stripe', invoice);
    }
    const commissions = await commissionsOf(server(), p);
    assert.deepEqual(
      commissions.map((c) => c.amount),
      [5.8, 5.8, 5.8],
    );
    // A customer who signed up 13 months ago is past the duration.
    const old = `cus_${unique()}`;
    const signedUp = new Date(Date.now() - 396 * 86_400_000).toISOString();
    const made = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { key: old, partner: { key: 'pa' }, created_at: signedUp },
    });
    assert.equal(made.status, 201, made.text);
    const late = invoicePaid(old, 2900);
    await deliverOk(server(), p, 'stripe', late);
    const sale = await transactionOf(server(), p, late.data.object.id);
    assert.equal(sale.body.data.amount, 29);
    assert.deepEqual(sale.body.data.rewards, []);
  });

  test('a partial then a full refund claw back exactly; a redelivered older refund changes nothing', async () => {
    const { p, partnerId } = await stripeProgram(server(), { type: 'percent', value: 30 });
    const customer = `cus_${unique()}`;
    await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    const invoice = invoicePaid(customer, 9999);
    await deliverOk(server(), p, 'stripe', invoice);
    const key = invoice.data.object.id;
    const partial = chargeRefunded(invoice, 3333);
    await deliverOk(server(), p, 'stripe', partial);
    let sale = await transactionOf(server(), p, key);
    assert.equal(sale.body.data.refunded_amount, 33.33);
    assert.equal(sale.body.data.rewards[0]?.amount, 19.998);
    await deliverOk(server(), p, 'stripe', chargeRefunded(invoice, 9999));
    sale = await transactionOf(server(), p, key);
    assert.equal(sale.body.data.refunded_amount, 99.99);
    const commission = itemAt(await commissionsOf(server(), p));
    assert.equal(commission.status, 'voided');
    // The partial refund again under another event id: already covered.
    const older = chargeRefunded(invoice, 3333);
    const again = await deliverOk(server(), p, 'stripe', older, 'ignored');
    assert.match(again.reason ?? '', /Nothing is left to refund/);
    assert.equal((await transactionOf(server(), p, key)).body.data.refunded_amount, 99.99);
    assert.deepEqual(await figuresOf(server(), p, partnerId), { paid: 0, pending: [], not_paid: [] });
    assert.deepEqual(await figuresOf(server(), p, partnerId), await recount(server(), p, partnerId));
  });

  test('a lost dispute refunds the whole sale; a won one nothing', async () => {
    const { p } = await stripeProgram(server());
    const customer = `cus_${unique()}`;
    await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    const invoice = invoicePaid(customer, 2900);
    await deliverOk(server(), p, 'stripe', invoice);
    const dispute = (status: string) => {
      const event = fixture('stripe-charge-dispute-closed');
      event.id = `evt_dp_${unique()}`;
      event.data.object.id = `dp_${unique()}`;
      event.data.object.status = status;
      event.data.object.charge = invoice.data.object.charge;
      event.data.object.payment_intent = invoice.data.object.payment_intent;
      return event;
    };
    await deliverOk(server(), p, 'stripe', dispute('won'), 'ignored');
    assert.equal((await transactionOf(server(), p, invoice.data.object.id)).body.data.refunded_amount, 0);
    await deliverOk(server(), p, 'stripe', dispute('lost'));
    const sale = await transactionOf(server(), p, invoice.data.object.id);
    assert.equal(sale.body.data.refunded_amount, 29);
    assert.equal((await commissionsOf(server(), p))[0]?.status, 'voided');
  });

  test('a promotion code of the invoice credits a new buyer to the code’s one partner', async () => {
    const { p, partnerId } = await stripeProgram(server());
    const coupon = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: {
        uuid_code: 'c1',
        coupon_discount_type: 'percent',
        coupon_discount_amount: 10,
        coupon_duration_type: 'once',
      },
    });
    assert.equal(coupon.status, 200, coupon.text);
    const code = await server().request('POST', '/v1/promotion-codes', {
      token: p.token,
      body: {
        coupon_uuid: 'c1',
        code: 'SPRING',
        limit_to_specific_partner: true,
        coupon_specific_partners: [{ id: partnerId }],
      },
    });
    assert.equal(code.status, 200, code.text);
    const invoice = invoicePaid(`cus_${unique()}`, 2610);
    invoice.data.object.discount = {
      id: 'di_1',
      object: 'discount',
      coupon: { id: 'c1' },
      promotion_code: { id: 'promo_1', code: 'SPRING' },
    };
    const done = await deliverOk(server(), p, 'stripe', invoice);
    assert.match(done.reason ?? '', /promotion code SPRING/);
    const sale = await transactionOf(server(), p, invoice.data.object.id);
    assert.equal(sale.body.data.partner, partnerId);
    const redeemed = await server().request('GET', '/v1/promotion-codes/SPRING', { token: p.token });
    assert.equal(redeemed.body.data.times_redeemed, 1);
  });

  test('zero- and three-decimal currencies are exact', async () => {
    const { p } = await stripeProgram(server());
    const customer = `cus_${unique()}`;
    await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    const yen = invoicePaid(customer, 1500, { currency: 'jpy' });
    const dinar = invoicePaid(customer, 12345, { currency: 'kwd', tax: 1 });
    await deliverOk(server(), p, 'stripe', yen);
    await deliverOk(server(), p, 'stripe', dinar);
    const yenSale = (await transactionOf(server(), p, yen.data.object.id)).body.data;
    assert.equal(yenSale.amount, 1500);
    assert.equal(yenSale.amount_units, 'JPY');
    assert.equal(yenSale.rewards[0]?.amount, 150);
    const dinarSale = (await transactionOf(server(), p, dinar.data.object.id)).body.data;
    assert.equal(dinarSale.amount, 12.344);
    assert.equal(dinarSale.amount_units, 'KWD');
    assert.equal(dinarSale.rewards[0]?.amount, 1.2344);
  });

  test('the same event twice, and 20 deliveries at once, make one sale', async () => {
    const { p } = await stripeProgram(server());
    const customer = `cus_${unique()}`;
    await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    const invoice = invoicePaid(customer, 2900);
    const first = await deliverOk(server(), p, 'stripe', invoice);
    const second = await deliverOk(server(), p, 'stripe', invoice);
    assert.equal(second.duplicate, true);
    assert.equal(second.id, first.id);
    const burst = invoicePaid(customer, 4900);
    const replies = await inParallel(20, 20, () => deliver(server(), p, 'stripe', burst));
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    assert.equal(await transactionCount(server(), p), 2);
    assert.equal((await commissionsOf(server(), p)).length, 2);
    const logged = await eventsLog(server(), p, '?limit=250');
    assert.equal(logged.filter((e) => e.event_id === burst.id).length, 1);
    const created = (await recordedEvents(server(), p)).filter((e) => e.event === 'transaction.created');
    assert.equal(created.length, 2);
  });

  test('a refund that arrives before its sale is kept, then applied when the sale arrives', async () => {
    const { p } = await stripeProgram(server());
    const customer = `cus_${unique()}`;
    await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    const invoice = invoicePaid(customer, 2900);
    const early = await deliverOk(server(), p, 'stripe', chargeRefunded(invoice, 900), 'pending');
    assert.match(early.reason ?? '', /has not arrived yet/);
    await deliverOk(server(), p, 'stripe', invoice);
    const sale = await transactionOf(server(), p, invoice.data.object.id);
    assert.equal(sale.body.data.refunded_amount, 9);
    const [logged] = await eventsLog(server(), p, `?status=processed&limit=250`).then((rows) =>
      rows.filter((e) => e.id === early.id),
    );
    assert.equal(logged?.transaction_key, invoice.data.object.id);
  });

  test('an unattributed sale creates nothing; once the owner links the customer, a retry records it', async () => {
    const { p, partnerId } = await stripeProgram(server());
    const customer = `cus_${unique()}`;
    const invoice = invoicePaid(customer, 2900);
    const received = await deliverOk(server(), p, 'stripe', invoice, 'unattributed');
    assert.equal(await transactionCount(server(), p), 0);
    assert.equal(
      (await server().request('GET', `/v1/customers/${customer}`, { token: p.token })).status,
      404,
    );
    const listed = await eventsLog(server(), p, '?status=unattributed&provider=stripe');
    assert.deepEqual(
      listed.map((e) => [e.id, e.type, e.status]),
      [[received.id, 'invoice.paid', 'unattributed']],
    );
    const link = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { key: customer, partner: { key: 'pa' } },
    });
    assert.equal(link.status, 201, link.text);
    const retried = await server().request('POST', `/v1/integrations/events/${received.id}/retry`, {
      token: p.token,
    });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.data.status, 'processed');
    assert.equal(retried.body.data.transaction_key, invoice.data.object.id);
    assert.equal((await transactionOf(server(), p, invoice.data.object.id)).body.data.partner, partnerId);
    const twice = await server().request('POST', `/v1/integrations/events/${received.id}/retry`, {
      token: p.token,
    });
    assert.equal(twice.status, 422, twice.text);
  });

  test('a referral key that names no partner is passed over for the next way; one log row either way', async () => {
    const { p, partnerId } = await stripeProgram(server());
    const stranger = invoicePaid(`cus_${unique()}`, 2900);
    Object.assign(stranger.data.object, { metadata: { vouch_referral: 'nobody' } });
    await deliverOk(server(), p, 'stripe', stranger, 'unattributed');
    assert.equal(await transactionCount(server(), p), 0);
    const customer = `cus_${unique()}`;
    const invoice = invoicePaid(customer, 2900);
    Object.assign(invoice.data.object, { metadata: { vouch_referral: 'pa' } });
    const received = await deliverOk(server(), p, 'stripe', invoice);
    assert.match(received.reason ?? '', /credited by referral pa/);
    const sale = await transactionOf(server(), p, invoice.data.object.id);
    assert.equal(sale.body.data.partner, partnerId);
    const logged = await eventsLog(server(), p, '?limit=250');
    assert.deepEqual(
      logged.filter((e) => [stranger.id, invoice.id].includes(e.event_id)).map((e) => e.status),
      ['processed', 'unattributed'],
    );
  });

  test('a sale that came before its checkout is recorded once the checkout links the customer', async () => {
    const { p, partnerId } = await stripeProgram(server());
    const customer = `cus_${unique()}`;
    const invoice = invoicePaid(customer, 2900);
    await deliverOk(server(), p, 'stripe', invoice, 'unattributed');
    await deliverOk(server(), p, 'stripe', checkout(customer, 'pa'));
    assert.equal((await transactionOf(server(), p, invoice.data.object.id)).body.data.partner, partnerId);
  });

  test('the log keeps an event as received only while it may run again', async () => {
    const { p } = await stripeProgram(server());
    const payloads = async () => {
      const rows = await server()
        .deps.database.db.selectFrom('billing_events')
        .select(['event_id', 'payload'])
        .where('program_id', '=', p.id)
        .execute();
      return new Map(
        rows.map((row) => [row.event_id, row.payload === null ? null : JSON.parse(row.payload).id]),
      );
    };
    const sale = invoicePaid(`cus_${unique()}`, 2900);
    Object.assign(sale.data.object, { metadata: { vouch_referral: 'pa' } });
    await deliverOk(server(), p, 'stripe', sale);
    const customer = `cus_${unique()}`;
    const stranger = invoicePaid(customer, 1500);
    const unattributed = await deliverOk(server(), p, 'stripe', stranger, 'unattributed');
    const ignored = {
      id: `evt_${unique()}`,
      object: 'event',
      type: 'payout.paid',
      data: { object: { id: 'po_1' } },
    };
    await deliverOk(server(), p, 'stripe', ignored, 'ignored');
    assert.deepEqual(
      await payloads(),
      new Map([
        [sale.id, null],
        [stranger.id, stranger.id],
        [ignored.id, null],
      ]),
    );
    const link = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { key: customer, partner: { key: 'pa' } },
    });
    assert.equal(link.status, 201, link.text);
    const retried = await server().request('POST', `/v1/integrations/events/${unattributed.id}/retry`, {
      token: p.token,
    });
    assert.equal(retried.body.data.status, 'processed', retried.text);
    assert.equal((await payloads()).get(stranger.id), null);
  });

  test('unknown event types answer 200 and are logged as ignored', async () => {
    const { p } = await stripeProgram(server());
    const event = {
      id: `evt_${unique()}`,
      object: 'event',
      type: 'payout.paid',
      data: { object: { id: 'po_1', object: 'payout' } },
    };
    const done = await deliverOk(server(), p, 'stripe', event, 'ignored');
    assert.match(done.reason ?? '', /does not act on payout.paid/);
    const logged = itemAt(await eventsLog(server(), p, '?status=ignored'));
    assert.equal(logged.event_id, event.id);
  });
});
