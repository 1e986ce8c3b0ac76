import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { attributionSteps, type BillingBuyer, billingReaders, orderedReferrals } from './billing.ts';
import { currencyExponent, minorToMicros, minorUnitsOf } from './billing-money.ts';
import { boundedRefundDelta, cumulativeRefundDelta } from './billing-refunds.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/billing/${name}.json`, import.meta.url), 'utf8'));

describe('minor units to micro-units, by the currency exponent', () => {
  const cases: [bigint, string, bigint, number][] = [
    [1999n, 'usd', 19_990_000n, 2],
    [1n, 'EUR', 10_000n, 2],
    [1500n, 'jpy', 1_500_000_000n, 0],
    [1500n, 'KRW', 1_500_000_000n, 0],
    [1234n, 'bhd', 1_234_000n, 3],
    [1234n, 'JOD', 1_234_000n, 3],
    [1n, 'KWD', 1_000n, 3],
    [999_999n, 'OMR', 999_999_000n, 3],
    [5n, 'TND', 5_000n, 3],
    [99_999_999_999_999n, 'usd', 999_999_999_999_990_000n, 2],
    [0n, 'gbp', 0n, 2],
  ];
  for (const [minor, currency, micros, exponent] of cases) {
    test(`${minor} ${currency} → ${micros} micro-units`, () => {
      assert.equal(currencyExponent(currency), exponent);
      assert.equal(minorToMicros(minor, currency), micros);
    });
  }
  test('minor amounts are integers, as numbers or numeric strings', () => {
    assert.equal(minorUnitsOf(2900), 2900n);
    assert.equal(minorUnitsOf('3300'), 3300n);
    assert.equal(minorUnitsOf('12345678901234567890'), 12345678901234567890n);
    for (const bad of [1.5, '12.5', '', null, undefined, 'x', Number.MAX_VALUE]) {
      assert.equal(minorUnitsOf(bad), undefined, String(bad));
    }
  });
});

describe('cumulative refunds of a charge', () => {
  const cases: {
    name: string;
    sale: bigint;
    before: bigint;
    charged: bigint;
    refunded: bigint;
    delta: bigint;
  }[] = [
    {
      name: 'a first partial refund',
      sale: 29_000_000n,
      before: 0n,
      charged: 2900n,
      refunded: 1000n,
      delta: 10_000_000n,
    },
    {
      name: 'the rest after it',
      sale: 29_000_000n,
      before: 10_000_000n,
      charged: 2900n,
      refunded: 2900n,
      delta: 19_000_000n,
    },
    {
      name: 'the same event again',
      sale: 29_000_000n,
      before: 10_000_000n,
      charged: 2900n,
      refunded: 1000n,
      delta: 0n,
    },
    {
      name: 'an older event after a newer one',
      sale: 29_000_000n,
      before: 29_000_000n,
      charged: 2900n,
      refunded: 1000n,
      delta: 0n,
    },
    // Tax was charged but is not part of the sale: a third of the charge is a third of the sale.
    {
      name: 'a share of a taxed charge',
      sale: 30_000_000n,
      before: 0n,
      charged: 3300n,
      refunded: 1100n,
      delta: 10_000_000n,
    },
    {
      name: 'thirds that round',
      sale: 10_000_000n,
      before: 0n,
      charged: 3n,
      refunded: 1n,
      delta: 3_333_333n,
    },
    {
      name: 'the last third takes what is left',
      sale: 10_000_000n,
      before: 6_666_666n,
      charged: 3n,
      refunded: 3n,
      delta: 3_333_334n,
    },
    {
      name: 'a refund beyond the charge',
      sale: 10_000_000n,
      before: 0n,
      charged: 100n,
      refunded: 150n,
      delta: 10_000_000n,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const decided = cumulativeRefundDelta({
        saleMicros: c.sale,
        refundedBeforeMicros: c.before,
        chargedMinor: c.charged,
        refundedMinor: c.refunded,
      });
      assert.equal(decided.deltaMicros, c.delta);
      assert.equal(decided.refundedAfter, c.before + c.delta);
    });
  }
  test('partial refunds add up to the sale exactly', () => {
    let before = 0n;
    let total = 0n;
    for (const refunded of [1n, 2n, 5n, 6n, 7n]) {
      const { deltaMicros, refundedAfter } = cumulativeRefundDelta({
        saleMicros: 12_345_679n,
        refundedBeforeMicros: before,
        chargedMinor: 7n,
        refundedMinor: refunded,
      });
      total += deltaMicros;
      before = refundedAfter;
    }
    assert.equal(total, 12_345_679n);
  });
  test('an amount refund is capped at what is left', () => {
    assert.deepEqual(boundedRefundDelta(30n, 10n, 5n), { deltaMicros: 5n, refundedAfter: 15n });
    assert.deepEqual(boundedRefundDelta(30n, 10n, 50n), { deltaMicros: 20n, refundedAfter: 30n });
    assert.deepEqual(boundedRefundDelta(30n, 30n, 5n), { deltaMicros: 0n, refundedAfter: 30n });
  });
});

describe('attribution order', () => {
  const buyer = (overrides: Partial<BillingBuyer>): BillingBuyer => ({
    customerId: null,
    email: undefined,
    name: undefined,
    referrals: [],
    promotionCode: undefined,
    ...overrides,
  });
  const cases: { name: string; buyer: BillingBuyer; steps: string[] }[] = [
    { name: 'nothing to go by', buyer: buyer({}), steps: [] },
    {
      name: 'referral keys, then the customer, then the code',
      buyer: buyer({ referrals: ['ref1', 'ref2'], customerId: 'cus_1', promotionCode: 'SAVE' }),
      steps: ['referral:ref1', 'referral:ref2', 'customer:cus_1', 'promotion_code:SAVE'],
    },
    { name: 'a code alone', buyer: buyer({ promotionCode: 'SAVE' }), steps: ['promotion_code:SAVE'] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(
        attributionSteps(c.buyer).map((step) => `${step.by}:${step.value}`),
        c.steps,
      );
    });
  }
  test('referral keys keep their order, without blanks or repeats', () => {
    assert.deepEqual(orderedReferrals(['  ', 'a', undefined, 'b', 'a', null, ' c ']), ['a', 'b', 'c']);
  });
});

describe('event → action', () => {
  const stripe = billingReaders.stripe;
  const paddle = billingReaders.paddle;
  test('checkout in subscription mode makes the customer, from client_reference_id', () => {
    const action = stripe.action(fixture('stripe-checkout-session-completed'));
    assert.equal(action.kind, 'customer');
    assert.ok(action.kind === 'customer');
    assert.deepEqual(action.buyer, {
      customerId: 'cus_QCheckoutBuyer01',
      email: 'buyer@example.com',
      name: 'Ada Buyer',
      referrals: ['PARTNER_KEY'],
      promotionCode: undefined,
    });
  });
  test('checkout in payment mode is a sale keyed by its payment intent, without tax', () => {
    const action = stripe.action(fixture('stripe-checkout-session-completed-payment'));
    assert.ok(action.kind === 'sale');
    assert.equal(action.key, 'pi_3QOneOffPayment0001');
    assert.equal(action.amountMinor, 5000n);
    assert.equal(action.currency, 'usd');
  });
  test('invoice.paid is a sale keyed by the invoice, with the price as product', () => {
    const action = stripe.action(fixture('stripe-invoice-paid'));
    assert.ok(action.kind === 'sale');
    assert.equal(action.key, 'in_1QFirstInvoice0001');
    assert.equal(action.amountMinor, 2900n);
    assert.equal(action.productId, 'price_1QProMonthly');
    assert.equal(action.productType, 'prod_QPro');
    assert.deepEqual(action.refs, ['ch_3QFirstCharge0001', 'pi_3QFirstPayment0001']);
    assert.equal(action.buyer.customerId, 'cus_QCheckoutBuyer01');
  });
  test('charge.refunded is a cumulative refund naming the invoice first', () => {
    const action = stripe.action(fixture('stripe-charge-refunded'));
    assert.ok(action.kind === 'refund');
    assert.deepEqual(action.saleRefs, [
      'in_1QFirstInvoice0001',
      'pi_3QFirstPayment0001',
      'ch_3QFirstCharge0001',
    ]);
    assert.deepEqual(action.measure, { kind: 'cumulative', chargedMinor: 2900n, refundedMinor: 1000n });
  });
  test('a lost dispute refunds the rest; a won one nothing', () => {
    const lost = fixture('stripe-charge-dispute-closed');
    const action = stripe.action(lost);
    assert.ok(action.kind === 'refund');
    assert.deepEqual(action.measure, { kind: 'rest' });
    const won = JSON.parse(JSON.stringify(lost).replace('"status":"lost"', '"status":"won"'));
    assert.equal(stripe.action(won).kind, 'ignore');
  });
  test('customer.created with metadata makes an attributed customer', () => {
    const action = stripe.action(fixture('stripe-customer-created'));
    assert.ok(action.kind === 'customer');
    assert.deepEqual(action.buyer.referrals, ['PARTNER_KEY']);
  });
  test('Paddle transaction.completed is a sale of total minus tax', () => {
    const action = paddle.action(fixture('paddle-transaction-completed'));
    assert.ok(action.kind === 'sale');
    assert.equal(action.key, 'txn_01hv8wptq8987qeep44cyrewp9');
    assert.equal(action.amountMinor, 3000n);
    assert.equal(action.productId, 'pri_01gsz8x8sawmvhz1pv30nge1ke');
    assert.deepEqual(action.buyer.referrals, ['PARTNER_KEY']);
  });
  test('a Paddle refund waits for approval, then refunds its amount without tax once', () => {
    assert.equal(paddle.action(fixture('paddle-adjustment-created')).kind, 'ignore');
    const action = paddle.action(fixture('paddle-adjustment-updated'));
    assert.ok(action.kind === 'refund');
    assert.deepEqual(action.measure, { kind: 'amount', amountMinor: 1000n });
    assert.equal(action.onceId, 'adj_01hvgf2s84dr6reszzg29zbvcm');
  });
  test('unknown types are ignored; envelopes give the event id', () => {
    assert.equal(stripe.action({ id: 'evt_1', type: 'payout.paid', data: { object: {} } }).kind, 'ignore');
    assert.equal(paddle.action({ event_id: 'evt_1', event_type: 'payout.paid', data: {} }).kind, 'ignore');
    assert.deepEqual(stripe.envelope(fixture('stripe-invoice-paid')), {
      eventId: 'evt_1QInvoicePaid0001',
      type: 'invoice.paid',
    });
    assert.equal(paddle.envelope({ event_type: 'x' }), undefined);
  });
  test('a sale without its amount is invalid', () => {
    assert.equal(
      stripe.action({ id: 'e', type: 'invoice.paid', data: { object: { id: 'in_1' } } }).kind,
      'invalid',
    );
  });
});
