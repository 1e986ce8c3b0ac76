import { textAt } from './billing-json.ts';
/**
 * What a processor's event asks of Vouch, decided from its payload alone (the Stripe and Paddle
 * readers in billing-stripe.ts and billing-paddle.ts): create a customer, record a sale, refund a
 * sale, or nothing. The integrations module applies the action through the customers and
 * transactions services.
 */
export type BillingProvider = 'stripe' | 'paddle';
export const billingProviders = ['stripe', 'paddle'] as const satisfies readonly BillingProvider[];

/**
 * Who the buyer is and what may credit it to a partner or referrer, in the order attribution
 * tries them: a referral key carried by the checkout (`client_reference_id`) or by metadata
 * (`vouch_referral`, first found on the session, subscription, invoice, customer), then a Vouch
 * customer that already is this processor customer, then a promotion code of the sale.
 */
export interface BillingBuyer {
  /** The processor's customer id (`cus_…`, `ctm_…`); null for a guest checkout. */
  customerId: string | null;
  email: string | undefined;
  name: string | undefined;
  /** Referral keys in the order the sources rank, without repeats. */
  referrals: string[];
  promotionCode: string | undefined;
}

export interface SaleAction {
  kind: 'sale';
  /** The transaction key: invoice id, payment intent id, Paddle transaction id. */
  key: string;
  buyer: BillingBuyer;
  /** What was paid without tax, in minor units of `currency`. */
  amountMinor: bigint;
  currency: string;
  productId: string | undefined;
  productType: string | undefined;
  /** Other ids a refund may name this sale by (charge, payment intent). */
  refs: string[];
}

export interface CustomerAction {
  kind: 'customer';
  buyer: BillingBuyer;
}

/** How much a refund takes: cumulative (Stripe charges), the rest of the sale, or an amount. */
export type RefundMeasure =
  | { kind: 'cumulative'; chargedMinor: bigint; refundedMinor: bigint }
  | { kind: 'rest' }
  | { kind: 'amount'; amountMinor: bigint };

export interface RefundAction {
  kind: 'refund';
  /** Ids the refunded sale may be known by, best first (the sale key when the event names it). */
  saleRefs: string[];
  measure: RefundMeasure;
  currency: string;
  /** The processor object refunded once (a Paddle adjustment), so two events of it refund once. */
  onceId: string | undefined;
}

export type BillingAction =
  | SaleAction
  | CustomerAction
  | RefundAction
  | { kind: 'ignore'; reason: string }
  | { kind: 'invalid'; reason: string };

/** The envelope every event has: its id (idempotency), type and the time the processor gives. */
export interface BillingEnvelope {
  eventId: string;
  type: string;
}

/**
 * A processor's customer created or changed: the same shape from Stripe and Paddle, whose
 * customers differ only in where the referral is kept (`metadata` or `custom_data`).
 */
export function customerAction(customer: unknown, referral: string | undefined): BillingAction {
  return {
    kind: 'customer',
    buyer: {
      customerId: textAt(customer, 'id') ?? null,
      email: textAt(customer, 'email'),
      name: textAt(customer, 'name'),
      referrals: orderedReferrals([referral]),
      promotionCode: undefined,
    },
  };
}

/** Referral keys in order, blank and repeated ones dropped. */
export function orderedReferrals(candidates: readonly (string | undefined | null)[]): string[] {
  const seen: string[] = [];
  for (const candidate of candidates) {
    const value = candidate?.trim();
    if (value && !seen.includes(value)) seen.push(value);
  }
  return seen;
}

/** The steps attribution tries, in order (core of the attribution rule, shown in the events log). */
export type AttributionStep =
  | { by: 'referral'; value: string }
  | { by: 'customer'; value: string }
  | { by: 'promotion_code'; value: string };

export function attributionSteps(buyer: BillingBuyer): AttributionStep[] {
  return [
    ...buyer.referrals.map((value) => ({ by: 'referral' as const, value })),
    ...(buyer.customerId ? [{ by: 'customer' as const, value: buyer.customerId }] : []),
    ...(buyer.promotionCode ? [{ by: 'promotion_code' as const, value: buyer.promotionCode }] : []),
  ];
}
