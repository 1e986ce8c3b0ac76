import type { BillingAction, BillingBuyer, BillingEnvelope } from './billing-events.ts';
import { customerAction, orderedReferrals } from './billing-events.ts';
import { at, idAt, isObject, listAt, textAt } from './billing-json.ts';
import { minorUnitsOf } from './billing-money.ts';

/**
 * Stripe events as Vouch reads them. Payloads follow Stripe's API reference; where API versions
 * moved a field (an invoice's subscription metadata under `parent`, taxes in `total_taxes`,
 * payments in `payments`), both places are read, so an account on either version works.
 */
export const REFERRAL_METADATA_KEY = 'vouch_referral';

export function stripeEnvelope(event: unknown): BillingEnvelope | undefined {
  const eventId = textAt(event, 'id');
  const type = textAt(event, 'type');
  return eventId && type ? { eventId, type } : undefined;
}

const referralIn = (object: unknown) => textAt(object, 'metadata', REFERRAL_METADATA_KEY);

/** A promotion code of the invoice's discounts: the code when expanded, else the promotion code id. */
function promotionCodeOf(invoice: unknown): string | undefined {
  const discounts = [at(invoice, 'discount'), ...listAt(invoice, 'discounts')];
  for (const discount of discounts) {
    const promotion = at(discount, 'promotion_code');
    const code = textAt(promotion, 'code') ?? (typeof promotion === 'string' ? promotion : undefined);
    if (code) return code;
  }
  return undefined;
}

function sumOfAmounts(list: readonly unknown[]): bigint | undefined {
  if (list.length === 0) return undefined;
  let sum = 0n;
  for (const item of list) sum += minorUnitsOf(at(item, 'amount')) ?? 0n;
  return sum;
}

function invoiceTax(invoice: unknown): bigint {
  return (
    minorUnitsOf(at(invoice, 'tax')) ??
    sumOfAmounts(listAt(invoice, 'total_taxes')) ??
    sumOfAmounts(listAt(invoice, 'total_tax_amounts').filter((tax) => at(tax, 'inclusive') !== true)) ??
    0n
  );
}

function invoiceSale(event: string, invoice: unknown): BillingAction {
  const key = textAt(invoice, 'id');
  const currency = textAt(invoice, 'currency');
  const paid = minorUnitsOf(at(invoice, 'amount_paid'));
  if (!key || !currency || paid === undefined) {
    return { kind: 'invalid', reason: `The ${event} event lacks the invoice's id, currency or amount_paid.` };
  }
  if (paid === 0n) return { kind: 'ignore', reason: 'Nothing was paid (amount_paid is 0).' };
  const line = listAt(invoice, 'lines', 'data')[0];
  const payments = listAt(invoice, 'payments', 'data').map((payment) => at(payment, 'payment'));
  const buyer: BillingBuyer = {
    customerId: idAt(invoice, 'customer') ?? null,
    email: textAt(invoice, 'customer_email'),
    name: textAt(invoice, 'customer_name'),
    referrals: orderedReferrals([
      textAt(invoice, 'subscription_details', 'metadata', REFERRAL_METADATA_KEY),
      textAt(invoice, 'parent', 'subscription_details', 'metadata', REFERRAL_METADATA_KEY),
      referralIn(invoice),
      referralIn(at(invoice, 'customer')),
    ]),
    promotionCode: promotionCodeOf(invoice),
  };
  return {
    kind: 'sale',
    key,
    buyer,
    amountMinor: paid - invoiceTax(invoice),
    currency,
    productId: idAt(line, 'price') ?? textAt(line, 'pricing', 'price_details', 'price'),
    productType: idAt(line, 'price', 'product') ?? textAt(line, 'pricing', 'price_details', 'product'),
    refs: orderedReferrals([
      idAt(invoice, 'charge'),
      idAt(invoice, 'payment_intent'),
      ...payments.flatMap((payment) => [idAt(payment, 'payment_intent'), idAt(payment, 'charge')]),
    ]),
  };
}

function checkoutBuyer(session: unknown): BillingBuyer {
  return {
    customerId: idAt(session, 'customer') ?? null,
    email: textAt(session, 'customer_details', 'email') ?? textAt(session, 'customer_email'),
    name: textAt(session, 'customer_details', 'name'),
    referrals: orderedReferrals([
      textAt(session, 'client_reference_id'),
      referralIn(session),
      referralIn(at(session, 'subscription')),
      referralIn(at(session, 'invoice')),
      referralIn(at(session, 'customer')),
    ]),
    promotionCode: undefined,
  };
}

/** A payment-mode checkout without an invoice is a sale of its own; others only make the customer. */
function checkoutCompleted(session: unknown): BillingAction {
  const buyer = checkoutBuyer(session);
  const invoiced = idAt(session, 'invoice') !== undefined;
  if (textAt(session, 'mode') !== 'payment' || invoiced || textAt(session, 'payment_status') !== 'paid') {
    return { kind: 'customer', buyer };
  }
  const key = idAt(session, 'payment_intent') ?? textAt(session, 'id');
  const currency = textAt(session, 'currency');
  const total = minorUnitsOf(at(session, 'amount_total'));
  if (!key || !currency || total === undefined) {
    return { kind: 'invalid', reason: 'The checkout session lacks its id, currency or amount_total.' };
  }
  const tax = minorUnitsOf(at(session, 'total_details', 'amount_tax')) ?? 0n;
  const line = listAt(session, 'line_items', 'data')[0];
  return {
    kind: 'sale',
    key,
    buyer,
    amountMinor: total - tax,
    currency,
    productId: idAt(line, 'price'),
    productType: idAt(line, 'price', 'product'),
    refs: orderedReferrals([idAt(session, 'payment_intent')]),
  };
}

function chargeRefunded(charge: unknown): BillingAction {
  const charged = minorUnitsOf(at(charge, 'amount'));
  const refunded = minorUnitsOf(at(charge, 'amount_refunded'));
  const currency = textAt(charge, 'currency');
  if (charged === undefined || refunded === undefined || !currency) {
    return { kind: 'invalid', reason: 'The charge lacks its amount, amount_refunded or currency.' };
  }
  return {
    kind: 'refund',
    saleRefs: orderedReferrals([
      idAt(charge, 'invoice'),
      idAt(charge, 'payment_intent'),
      textAt(charge, 'id'),
    ]),
    measure: { kind: 'cumulative', chargedMinor: charged, refundedMinor: refunded },
    currency,
    onceId: undefined,
  };
}

function disputeClosed(dispute: unknown): BillingAction {
  const status = textAt(dispute, 'status');
  if (status !== 'lost')
    return { kind: 'ignore', reason: `The dispute closed as ${status ?? 'unknown'}, not lost.` };
  return {
    kind: 'refund',
    saleRefs: orderedReferrals([idAt(dispute, 'payment_intent'), idAt(dispute, 'charge')]),
    measure: { kind: 'rest' },
    currency: textAt(dispute, 'currency') ?? '',
    onceId: textAt(dispute, 'id'),
  };
}

const customerChanged = (customer: unknown) => customerAction(customer, referralIn(customer));

/** The action of a Stripe event (its `type` and `data.object`). */
export function stripeAction(event: unknown): BillingAction {
  const type = textAt(event, 'type') ?? '';
  const object = at(event, 'data', 'object');
  if (!isObject(object)) return { kind: 'invalid', reason: 'The event has no data.object.' };
  switch (type) {
    case 'invoice.paid':
      return invoiceSale(type, object);
    case 'checkout.session.completed':
      return checkoutCompleted(object);
    case 'charge.refunded':
      return chargeRefunded(object);
    case 'charge.dispute.closed':
      return disputeClosed(object);
    case 'customer.created':
    case 'customer.updated':
      return customerChanged(object);
    default:
      return { kind: 'ignore', reason: `Vouch does not act on ${type} events.` };
  }
}
