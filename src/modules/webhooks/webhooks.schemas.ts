import { type Static, type TSchema, Type } from 'typebox';
import { eventsByProgramType } from '../../core/events.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { ListQuery } from '../../http/list-query.ts';
import { BooleanLike, literalUnion, Timestamp } from '../../http/schemas.ts';

export const Webhook = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    url: Type.String(),
    is_active: Type.Boolean(),
    signature: Type.Optional(
      Type.String({
        description:
          'Secret issued by Vouch. Deliveries carry `Signature: hex(HMAC-SHA256(body, signature))` and the ' +
          'Standard Webhooks headers signed with the secret `whsec_` + base64(signature). Shown to full-scope ' +
          'keys only: read-only keys get the webhook without it.',
      }),
    ),
    events: Type.Array(Type.String()),
  },
  { title: 'Webhook' },
);

const WebhookKey = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/?#\\s]+$' });

/** The events a program of this type can produce; anything else is 422 on `events.N`. */
const EventList = (type: ProgramType) =>
  Type.Array(literalUnion(eventsByProgramType[type]), {
    minItems: 1,
    maxItems: 100,
  });

const label = (type: ProgramType) => `${type.charAt(0).toUpperCase()}${type.slice(1)}`;

const createBody = (type: ProgramType) =>
  Type.Object(
    {
      key: Type.Optional(WebhookKey),
      name: Type.String({ minLength: 1, maxLength: 255 }),
      url: Type.String({ format: 'http-url', maxLength: 2048 }),
      is_active: Type.Optional(BooleanLike),
      events: EventList(type),
    },
    { title: `Create${label(type)}WebhookBody` },
  );

const updateBody = (type: ProgramType) =>
  Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      url: Type.Optional(Type.String({ format: 'http-url', maxLength: 2048 })),
      is_active: Type.Optional(BooleanLike),
      events: Type.Optional(EventList(type)),
    },
    {
      title: `Update${label(type)}WebhookBody`,
      description: 'Flat, or wrapped as `{"update": {...}}`; omitted fields stay as they are.',
    },
  );

export const CreateWebhookBodyByType = {
  affiliate: createBody('affiliate'),
  referral: createBody('referral'),
  newsletter: createBody('newsletter'),
} satisfies Record<ProgramType, TSchema>;

export const UpdateWebhookBodyByType = {
  affiliate: updateBody('affiliate'),
  referral: updateBody('referral'),
  newsletter: updateBody('newsletter'),
} satisfies Record<ProgramType, TSchema>;

/** The bodies as validated: every type's variant has the same fields (its events differ). */
export type CreateWebhookBody = Static<ReturnType<typeof createBody>>;
export type UpdateWebhookBody = Static<ReturnType<typeof updateBody>>;

export const WebhookKeyParams = Type.Object({ key: WebhookKey });
export const DeliveryParams = Type.Object({
  key: WebhookKey,
  id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const ListWebhooksQuery = ListQuery('webhooks');
export const ListDeliveriesQuery = ListQuery('webhooks');

export const WebhookAttempt = Type.Object(
  {
    id: Type.Integer({ description: 'The attempt' }),
    delivery_id: Type.String({
      description:
        'The delivery (one per event and webhook): the `webhook-id` header, the same on every retry',
    }),
    event: Type.String(),
    test: Type.Boolean({ description: 'A sample event sent by POST /v1/webhooks/{key}/test' }),
    attempt: Type.Integer({ description: '1 for the first attempt of the delivery' }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    response_code: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status the receiver answered; null when it did not',
    }),
    duration_ms: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()]),
    next_attempt_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the delivery will be tried again; null when this attempt was the last',
    }),
    created_at: Timestamp,
  },
  { title: 'WebhookAttempt' },
);
