// What the billing integration tests share: the documented event fixtures (test/fixtures/billing),
// changed where a test needs it, signed as each processor signs (Stripe with its library's test
// header, Paddle as its docs define: `ts=…;h1=HMAC-SHA256(secret, ts + ":" + raw body)`), and sent.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import type { ProgramType } from '../src/core/program-types.ts';
import type { AnswerOf, TestProgram, TestServer } from './harness.ts';

export const STRIPE_SECRET = 'whsec_test_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH';
export const PADDLE_SECRET = 'pdl_ntfset_01hv8x2test_0123456789abcdef';

type Provider = 'stripe' | 'paddle';
/** The documented events tests start from, typed as their JSON is. */
type Fixtures = {
  'paddle-adjustment-created': typeof import('./fixtures/billing/paddle-adjustment-created.json', { with: {
    type: 'json',
  }});
  'paddle-adjustment-updated': typeof import('./fixtures/billing/paddle-adjustment-updated.json', { with: {
    type: 'json',
  }});
  'paddle-customer-created': typeof import('./fixtures/billing/paddle-customer-created.json', { with: {
    type: 'json',
  }});
  'paddle-transaction-completed': typeof import('./fixtures/billing/paddle-transaction-completed.json', { with: {
    type: 'json',
  }});
  'stripe-charge-dispute-closed': typeof import('./fixtures/billing/stripe-charge-dispute-closed.json', { with: {
    type: 'json',
  }});
  'stripe-charge-refunded': typeof import('./fixtures/billing/stripe-charge-refunded.json', { with: {
    type: 'json',
  }});
  'stripe-checkout-session-completed': typeof import('./fixtures/billing/stripe-checkout-session-completed.json', { with: {
    type: 'json',
  }});
  'stripe-checkout-session-completed-payment': typeof import('./fixtures/billing/stripe-checkout-session-completed-payment.json', { with: {
    type: 'json',
  }});
  'stripe-customer-created': typeof import('./fixtures/billing/stripe-customer-created.json', { with: {
    type: 'json',
  }});
  'stripe-invoice-paid': typeof import('./fixtures/billing/stripe-invoice-paid.json', { with: {
    type: 'json',
  }});
};
export type FixtureName = keyof Fixtures;

/**
 * A fixture's JSON as a test may change it: its fields keep their types, except that a field the
 * fixture leaves `null` takes any value, and an object takes fields the fixture does not have.
 */
type Editable<T> = T extends null
  ? unknown
  : T extends readonly unknown[]
    ? { -readonly [I in keyof T]: Editable<T[I]> }
    : T extends object
      ? { -readonly [K in keyof T]: Editable<T[K]> } & { [field: string]: unknown }
      : T;

/** A fresh copy of the fixture `N`, as a test may change it. */
export type Fixture<N extends FixtureName> = Editable<Fixtures[N]>;

/** Processor JSON: a fixture, as changed by a test, or any event a test writes (or its raw text). */
export type Json = Fixture<FixtureName> | { [field: string]: unknown } | string;

const stripe = new Stripe('sk_test_unused');

/** A fresh copy of a fixture. */
export function fixture<N extends FixtureName>(name: N): Fixture<N> {
  return JSON.parse(readFileSync(new URL(`fixtures/billing/${name}.json`, import.meta.url), 'utf8'));
}

/** `Stripe-Signature` for a body, by the library's own test helper; `timestamp` in seconds. */
export function stripeSignature(body: string, secret = STRIPE_SECRET, timestamp?: number) {
  return stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret,
    ...(timestamp !== undefined ? { timestamp } : {}),
  });
}

/** `Paddle-Signature` as Paddle's docs define it. */
export function paddleSignature(
  body: string,
  secret = PADDLE_SECRET,
  timestamp = Math.floor(Date.now() / 1000),
) {
  const h1 = createHmac('sha256', secret).update(`${timestamp}:${body}`).digest('hex');
  return `ts=${timestamp};h1=${h1}`;
}

export const signatureHeader = { stripe: 'stripe-signature', paddle: 'paddle-signature' } as const;

/** Connects the program to a processor with the test secret. */
export async function connect(server: TestServer, p: TestProgram, provider: Provider) {
  const res = await server.request('PUT', `/v1/integrations/${provider}`, {
    token: p.token,
    body: { webhook_secret: provider === 'stripe' ? STRIPE_SECRET : PADDLE_SECRET, active: true },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** An affiliate program with partner `pa`, connected to `providers` with the test secrets. */
export async function programWithPartner(server: TestServer, providers: readonly Provider[] = ['stripe']) {
  const p = await server.newProgram('affiliate');
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'pa@example.com', key: 'pa' },
  });
  assert.equal(partner.status, 201, partner.text);
  for (const provider of providers) await connect(server, p, provider);
  return p;
}

export interface Delivery {
  /** A signature header to send instead of the right one (`null`: none). */
  signature?: string | null;
  /** Sent instead of the JSON of the event (a body changed after signing, invalid JSON). */
  rawBody?: string;
  programPublicId?: string;
}

/** Delivers an event as the processor would: JSON body, signed. */
export function deliver(
  server: TestServer,
  p: TestProgram,
  provider: Provider,
  event: Json,
  options: Delivery = {},
) {
  const body = typeof event === 'string' ? event : JSON.stringify(event);
  const signature =
    options.signature === undefined
      ? provider === 'stripe'
        ? stripeSignature(body)
        : paddleSignature(body)
      : options.signature;
  return server.request('POST', `/integrations/${provider}/${options.programPublicId ?? p.publicId}`, {
    body: options.rawBody ?? body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature === null ? {} : { [signatureHeader[provider]]: signature }),
    },
  });
}

/** Delivers and expects 200 with the given status in the answer. */
export async function deliverOk(
  server: TestServer,
  p: TestProgram,
  provider: Provider,
  event: Json,
  status = 'processed',
) {
  const res = await deliver(server, p, provider, event);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, status, res.text);
  return res.body.data;
}

let counter = 0;
/** A unique suffix for ids, so tests of one file never share an event or invoice id. */
export const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A Stripe `invoice.paid` for `customer`, its own event, invoice, charge and payment intent ids. */
export function invoicePaid(
  customer: string,
  amountPaid: number,
  overrides: { currency?: string; tax?: number } = {},
) {
  const event = fixture('stripe-invoice-paid');
  const id = unique();
  const invoice = event.data.object;
  event.id = `evt_inv_${id}`;
  invoice.id = `in_${id}`;
  invoice.charge = `ch_${id}`;
  invoice.payment_intent = `pi_${id}`;
  invoice.customer = customer;
  invoice.amount_paid = amountPaid;
  invoice.amount_due = amountPaid;
  invoice.tax = overrides.tax ?? null;
  if (overrides.currency) invoice.currency = overrides.currency;
  return event;
}

/** `invoicePaid` for a buyer with an e-mail of its own, credited to `referral` by the invoice's metadata. */
export function referredInvoice(customer: string, amountPaid: number, referral = 'pa') {
  const event = invoicePaid(customer, amountPaid);
  Object.assign(event.data.object, {
    customer_email: `${customer}@example.com`,
    metadata: { vouch_referral: referral },
  });
  return event;
}

/** A `charge.refunded` of an invoice's charge with `amountRefunded` refunded in all so far. */
export function chargeRefunded(invoiceEvent: Fixture<'stripe-invoice-paid'>, amountRefunded: number) {
  const event = fixture('stripe-charge-refunded');
  const invoice = invoiceEvent.data.object;
  const charge = event.data.object;
  event.id = `evt_ref_${unique()}`;
  charge.id = invoice.charge;
  charge.invoice = invoice.id;
  charge.payment_intent = invoice.payment_intent;
  charge.customer = invoice.customer;
  charge.amount = invoice.amount_paid;
  charge.amount_captured = invoice.amount_paid;
  charge.amount_refunded = amountRefunded;
  charge.refunded = amountRefunded >= invoice.amount_paid;
  charge.currency = invoice.currency;
  return event;
}

export async function eventsLog(server: TestServer, p: TestProgram, query = '') {
  const res = await server.request<AnswerOf<'GET', '/v1/integrations/events'>>(
    'GET',
    `/v1/integrations/events${query}`,
    { token: p.token },
  );
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

export async function transactionOf<K extends ProgramType>(
  server: TestServer,
  p: TestProgram<K>,
  key: string,
) {
  const res = await server.request('GET', `/v1/transactions/${key}`, { token: p.token });
  return res;
}
