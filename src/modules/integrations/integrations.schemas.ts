import { type Static, Type } from 'typebox';
import type { BillingProvider } from '../../core/billing.ts';
import { ListQuery } from '../../http/list-query.ts';
import { BooleanLike, NullableString, Timestamp } from '../../http/schemas.ts';
import type { BillingEventStatus } from './integrations.tables.ts';

/** Wire shapes of billing integrations (issue 31): processor settings, received events. */

export const Provider = Type.Union([Type.Literal('stripe'), Type.Literal('paddle')], {
  description: 'The payment processor: `stripe` or `paddle` (Paddle Billing)',
  'x-error': 'in',
});

// A string like every other path segment: a provider Vouch does not know is the 404 of a missing
// integration, so a stranger's request cannot tell the two apart.
export const ProviderParams = Type.Object({
  provider: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The payment processor: `stripe` or `paddle`',
  }),
});

export const SaveIntegrationBody = Type.Object(
  {
    webhook_secret: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 512,
        pattern: '^\\S+$',
        description:
          "The endpoint's signing secret from the processor's dashboard (Stripe `whsec_…`, Paddle `pdl_ntfset_…`). " +
          'Required the first time (without it, a PUT of an integration that does not exist is a 404); sealed at rest and never shown again.',
      }),
    ),
    active: Type.Optional(BooleanLike),
  },
  {
    title: 'SaveIntegrationBody',
    description:
      'Omitted fields keep their value; `active` defaults to true when the integration is created.',
    examples: [{ webhook_secret: 'whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH', active: true }],
  },
);
export type SaveIntegrationBody = Static<typeof SaveIntegrationBody>;

export const Integration = Type.Object(
  {
    provider: Provider,
    active: Type.Boolean(),
    endpoint_url: Type.String({
      description:
        'The URL to give the processor as the webhook endpoint: `/integrations/{provider}/{program public id}`',
    }),
    secret_hint: Type.String({ description: 'The last 4 characters of the webhook secret' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Integration' },
);

export const EventStatus = Type.Union(
  [
    Type.Literal('processing'),
    Type.Literal('processed'),
    Type.Literal('ignored'),
    Type.Literal('unattributed'),
    Type.Literal('pending'),
    Type.Literal('failed'),
  ],
  {
    description:
      '`processed`; `ignored` (a type Vouch does not act on, or nothing to do); `unattributed` (nothing credits the buyer: ' +
      'nothing was created); `pending` (a refund waiting for its sale); `failed` (it can never be applied as it is: see `reason`); ' +
      '`processing` while it runs',
    'x-error': 'in',
  },
);

export const BillingEvent = Type.Object(
  {
    id: Type.Integer({ description: 'Vouch’s id of the received event (retry it with this id)' }),
    provider: Provider,
    event_id: Type.String({ description: "The processor's event id (`evt_…`)" }),
    type: Type.String({ examples: ['invoice.paid'] }),
    status: EventStatus,
    reason: NullableString,
    transaction_key: Type.Union([Type.String(), Type.Null()], {
      description: 'The transaction it recorded or refunded',
    }),
    customer_key: Type.Union([Type.String(), Type.Null()], {
      description: 'The customer it created or credited',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'BillingEvent' },
);

export const ListBillingEventsQuery = ListQuery('standard', {
  provider: Type.Optional(Provider),
  status: Type.Optional(EventStatus),
});
export type ListBillingEventsQuery = Static<typeof ListBillingEventsQuery>;

// A string like every other path id: one that names no event (out of range, not a number) is a 404.
export const BillingEventParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ProcessorParams = Type.Object({
  provider: Provider,
  program: Type.String({ minLength: 1, maxLength: 64, description: "The program's public id" }),
});

/** A processor event as a processor sends it: only its envelope is described; the rest is the processor's. */
export const ProcessorEventBody = Type.Object(
  {},
  {
    title: 'ProcessorEvent',
    additionalProperties: true,
    description:
      'The event exactly as the processor sends it, signed (`Stripe-Signature` or `Paddle-Signature` over the raw body). ' +
      'Stripe: `{id, type, data: {object}}`; Paddle: `{event_id, event_type, data}`.',
    examples: [
      {
        id: 'evt_1QInvoicePaid0001',
        object: 'event',
        type: 'invoice.paid',
        data: {
          object: {
            id: 'in_1QFirstInvoice0001',
            object: 'invoice',
            amount_paid: 2900,
            currency: 'usd',
            customer: 'cus_QCheckoutBuyer01',
            tax: null,
          },
        },
      },
    ],
  },
);

export const ReceivedEvent = Type.Object(
  {
    id: Type.Integer(),
    event_id: Type.String(),
    type: Type.String(),
    status: EventStatus,
    reason: NullableString,
    duplicate: Type.Boolean({ description: 'True when this event id was received before: nothing changed' }),
  },
  { title: 'ReceivedEvent' },
);

// The wire enums name exactly the providers and statuses the code knows.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const providersMatch: Same<Static<typeof Provider>, BillingProvider> = true;
const statusesMatch: Same<Static<typeof EventStatus>, BillingEventStatus> = true;
void providersMatch;
void statusesMatch;
