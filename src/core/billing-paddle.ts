import type { BillingAction, BillingEnvelope } from './billing-events.ts';
import { customerAction, orderedReferrals } from './billing-events.ts';
import { at, isObject, listAt, textAt } from './billing-json.ts';
import { minorUnitsOf } from './billing-money.ts';
import { REFERRAL_METADATA_KEY } from './billing-stripe.ts';

/**
 * Paddle Billing events as Vouch reads them (Paddle's webhook reference): amounts are strings of
 * minor units, `custom_data` carries what the checkout was given, a sale is a completed
 * transaction and a refund an approved adjustment with action `refund`.
 */
export function paddleEnvelope(event: unknown): BillingEnvelope | undefined {
  const eventId = textAt(event, 'event_id');
  const type = textAt(event, 'event_type');
  return eventId && type ? { eventId, type } : undefined;
}

const referralIn = (object: unknown) => textAt(object, 'custom_data', REFERRAL_METADATA_KEY);

function transactionCompleted(transaction: unknown): BillingAction {
  const key = textAt(transaction, 'id');
  const totals = at(transaction, 'details', 'totals');
  const currency = textAt(transaction, 'currency_code') ?? textAt(totals, 'currency_code');
  const total = minorUnitsOf(at(totals, 'total'));
  const tax = minorUnitsOf(at(totals, 'tax')) ?? 0n;
  if (!key || !currency || total === undefined) {
    return {
      kind: 'invalid',
      reason: 'The transaction lacks its id, currency_code or details.totals.total.',
    };
  }
  const item = listAt(transaction, 'items')[0];
  return {
    kind: 'sale',
    key,
    buyer: {
      customerId: textAt(transaction, 'customer_id') ?? null,
      email: textAt(transaction, 'customer', 'email'),
      name: textAt(transaction, 'customer', 'name'),
      referrals: orderedReferrals([referralIn(transaction)]),
      promotionCode: textAt(transaction, 'discount', 'code') ?? textAt(transaction, 'discount_id'),
    },
    amountMinor: total - tax,
    currency,
    productId: textAt(item, 'price', 'id') ?? textAt(item, 'price_id'),
    productType: textAt(item, 'price', 'product_id'),
    refs: [],
  };
}

function adjustmentChanged(adjustment: unknown): BillingAction {
  const action = textAt(adjustment, 'action');
  const status = textAt(adjustment, 'status');
  if (action !== 'refund')
    return { kind: 'ignore', reason: `Adjustments with action ${action ?? 'unknown'} are not refunds.` };
  if (status !== 'approved')
    return { kind: 'ignore', reason: `The refund is ${status ?? 'unknown'}, not approved yet.` };
  const transactionId = textAt(adjustment, 'transaction_id');
  const totals = at(adjustment, 'totals');
  const total = minorUnitsOf(at(totals, 'total'));
  const tax = minorUnitsOf(at(totals, 'tax')) ?? 0n;
  const currency = textAt(adjustment, 'currency_code') ?? textAt(totals, 'currency_code');
  if (!transactionId || total === undefined || !currency) {
    return {
      kind: 'invalid',
      reason: 'The adjustment lacks its transaction_id, totals.total or currency_code.',
    };
  }
  return {
    kind: 'refund',
    saleRefs: [transactionId],
    measure: { kind: 'amount', amountMinor: total - tax },
    currency,
    onceId: textAt(adjustment, 'id'),
  };
}

const customerChanged = (customer: unknown) => customerAction(customer, referralIn(customer));

/** The action of a Paddle event (its `event_type` and `data`). */
export function paddleAction(event: unknown): BillingAction {
  const type = textAt(event, 'event_type') ?? '';
  const data = at(event, 'data');
  if (!isObject(data)) return { kind: 'invalid', reason: 'The event has no data.' };
  switch (type) {
    case 'transaction.completed':
      return transactionCompleted(data);
    case 'adjustment.created':
    case 'adjustment.updated':
      return adjustmentChanged(data);
    case 'customer.created':
    case 'customer.updated':
      return customerChanged(data);
    default:
      return { kind: 'ignore', reason: `Vouch does not act on ${type} events.` };
  }
}
