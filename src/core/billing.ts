import type { BillingAction, BillingEnvelope, BillingProvider } from './billing-events.ts';
import { paddleAction, paddleEnvelope } from './billing-paddle.ts';
import { stripeAction, stripeEnvelope } from './billing-stripe.ts';

/** Each provider's readers: the envelope (event id and type) and the action of an event. */
export const billingReaders = {
  stripe: { envelope: stripeEnvelope, action: stripeAction },
  paddle: { envelope: paddleEnvelope, action: paddleAction },
} satisfies Record<
  BillingProvider,
  { envelope: (event: unknown) => BillingEnvelope | undefined; action: (event: unknown) => BillingAction }
>;

export * from './billing-events.ts';
