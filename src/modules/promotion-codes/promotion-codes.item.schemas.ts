import { type Static, Type } from 'typebox';
import { DateOnly, Timestamp } from '../../http/schemas.ts';

/**
 * A promotion code on the wire (spec "Promotion code"), without its coupon: the coupon's own
 * responses list its codes in this shape, and the code's fetch adds `coupon`. Its own file, so
 * the coupon and code schemas both use it without importing each other.
 */
export const promotionCodeFields = {
  code: Type.String(),
  coupon_uuid: Type.String({ description: 'The `uuid_code` of the coupon the code redeems' }),
  first_time_order: Type.Boolean(),
  limit_to_specific_partner: Type.Boolean(),
  coupon_specific_partners: Type.Array(Type.Object({ id: Type.String(), full_name: Type.String() })),
  limit_to_specific_customer: Type.Boolean(),
  coupon_specific_customers: Type.Array(
    Type.Object({ id: Type.String(), customer_full_name: Type.String() }),
  ),
  minimum_order_status: Type.Boolean(),
  minimum_order_value: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Whole units of the order currency; a sale of less is refused',
  }),
  expiration_date_status: Type.Boolean(),
  expiration_date_value: Type.Union([DateOnly, Type.Null()], { description: 'The last day of redemption' }),
  redemption_times_status: Type.Boolean(),
  redemption_times_value: Type.Union([Type.Integer(), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  times_redeemed: Type.Integer(),
  additional_info: Type.Object({
    redemptions: Type.Array(
      Type.Object({ redeemed_at: Timestamp, transaction_key: Type.Union([Type.String(), Type.Null()]) }),
      { description: 'The latest 25 redemptions, oldest first (`times_redeemed` counts them all)' },
    ),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const PromotionCode = Type.Object(promotionCodeFields, { title: 'PromotionCode' });

/** A status switch: a boolean, `"true"`/`"false"`, 1/0, or the older `"on"`/`"off"`. */
export const Switch = Type.Union(
  [
    Type.Boolean(),
    Type.Literal('true'),
    Type.Literal('false'),
    Type.Literal(1),
    Type.Literal(0),
    Type.Literal('on'),
    Type.Literal('off'),
  ],
  {
    title: 'StatusSwitch',
    'x-error': 'boolean',
    description: 'A boolean; the older strings `on`/`off` are accepted too',
  },
);

/** `uuid_code` and a promotion `code`: letters, digits, `_` and `-`, also used in paths. */
export const IdentifierCode = Type.String({ pattern: '^[A-Za-z0-9_-]{1,255}$', 'x-error': 'format' });

export const PositiveCount = Type.Integer({ minimum: 1, maximum: 1_000_000_000 });
export const DateInput = Type.String({ format: 'date' });

/**
 * Free-form metadata: at most 50 keys (40 characters) of scalar values; a null value removes its
 * key on update. Declared with `additionalProperties` so that null reaches the service as a value.
 */
export const MetadataInput = Type.Unsafe<Record<string, string | number | boolean | null>>(
  Type.Object(
    {},
    {
      additionalProperties: Type.Union(
        [Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean(), Type.Null()],
        { 'x-error': 'string' },
      ),
      propertyNames: { maxLength: 40 },
      maxProperties: 50,
      description:
        'At most 50 keys (40 characters) of strings (500), numbers or booleans; null removes a key',
    },
  ),
);

const PartnerReferences = Type.Array(
  Type.Object({
    id: Type.String({ minLength: 1, maxLength: 255 }),
    full_name: Type.Optional(Type.String({ maxLength: 255 })),
  }),
  { maxItems: 100, title: 'PromotionCodePartnersInput', description: 'Partners by `id`, at most 100' },
);
const CustomerReferences = Type.Array(
  Type.Object({
    id: Type.String({ minLength: 1, maxLength: 255, description: 'The customer’s id or key' }),
    customer_full_name: Type.Optional(Type.String({ maxLength: 255 })),
  }),
  {
    maxItems: 100,
    title: 'PromotionCodeCustomersInput',
    description: 'Customers by `id` or `key`, at most 100',
  },
);

/** What a code's create and update set (every field optional). */
export const promotionCodeSettingsFields = {
  first_time_order: Type.Optional(Switch),
  limit_to_specific_partner: Type.Optional(Switch),
  coupon_specific_partners: Type.Optional(PartnerReferences),
  limit_to_specific_customer: Type.Optional(Switch),
  coupon_specific_customers: Type.Optional(CustomerReferences),
  minimum_order_status: Type.Optional(Switch),
  minimum_order_value: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000_000 })),
  expiration_date_status: Type.Optional(Switch),
  expiration_date_value: Type.Optional(DateInput),
  redemption_times_status: Type.Optional(Switch),
  redemption_times_value: Type.Optional(PositiveCount),
  metadata: Type.Optional(MetadataInput),
};

/** A code created with its coupon (`promotion_codes` of a coupon create). */
export const NestedPromotionCodeBody = Type.Object(
  { code: Type.Optional(IdentifierCode), ...promotionCodeSettingsFields },
  { title: 'NestedPromotionCodeBody' },
);
export type PromotionCodeSettingsInput = Static<typeof NestedPromotionCodeBody>;
