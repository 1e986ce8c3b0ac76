import { type Static, type TSchema, Type } from 'typebox';
import { discountTypes, durationTypes } from '../../core/coupons.ts';
import { ListQuery } from '../../http/list-query.ts';
import {
  Amount,
  BooleanLike,
  DateOnly,
  literalUnion,
  NullableTimestamp,
  Paginated,
  Success,
  Timestamp,
} from '../../http/schemas.ts';
import {
  DateInput,
  IdentifierCode,
  MetadataInput,
  NestedPromotionCodeBody,
  PositiveCount,
  PromotionCode,
  Switch,
} from '../promotion-codes/promotion-codes.item.schemas.ts';

/** Wire shapes of `/v1/coupons…` (spec "Coupon"). Property order is the serialized order. */

const literals = <T extends readonly string[]>(values: T, title: string) =>
  literalUnion(values, { 'x-error': 'invalid', title });

const couponFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  active: BooleanLike,
  coupon_discount_type: literals(discountTypes, 'CouponDiscountType'),
  coupon_discount_amount: Amount({
    sign: 'positive',
    description: 'percent: more than 0 and at most 100; static: a positive integer',
  }),
  coupon_duration_type: literals(durationTypes, 'CouponDurationType'),
  coupon_duration_value: PositiveCount,
  redemption_specific_date_status: Switch,
  redemption_specific_date_value: DateInput,
  redemption_times_status: Switch,
  redemption_times_value: PositiveCount,
  metadata: MetadataInput,
};

export const CreateCouponBody = Type.Object(
  {
    name: Type.Optional(couponFields.name),
    uuid_code: Type.Optional(IdentifierCode),
    active: Type.Optional(couponFields.active),
    coupon_discount_type: couponFields.coupon_discount_type,
    coupon_discount_amount: couponFields.coupon_discount_amount,
    coupon_duration_type: couponFields.coupon_duration_type,
    coupon_duration_value: Type.Optional(couponFields.coupon_duration_value),
    redemption_specific_date_status: Type.Optional(couponFields.redemption_specific_date_status),
    redemption_specific_date_value: Type.Optional(couponFields.redemption_specific_date_value),
    redemption_times_status: Type.Optional(couponFields.redemption_times_status),
    redemption_times_value: Type.Optional(couponFields.redemption_times_value),
    promotion_codes: Type.Optional(
      Type.Array(NestedPromotionCodeBody, {
        maxItems: 100,
        description: 'Codes created with the coupon: each a promotion code create body without `coupon_uuid`',
      }),
    ),
    metadata: Type.Optional(couponFields.metadata),
  },
  { title: 'CreateCouponBody' },
);
export type CreateCouponBody = Static<typeof CreateCouponBody>;

const couponChanges = Type.Partial(Type.Object(couponFields), { title: 'CouponChanges' });

export const UpdateCouponBody = Type.Object(
  {
    uuid_code: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    id: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The older update form names the coupon by `id`' }),
    ),
    ...couponChanges.properties,
    update: Type.Optional(couponChanges),
  },
  {
    title: 'UpdateCouponBody',
    description:
      'Names the coupon by the path, `uuid_code` or the older `id`; changes flat or wrapped in `update`; `metadata` is merged (a null value removes its key). Promotion codes are not changed here.',
  },
);
export type UpdateCouponBody = Static<typeof UpdateCouponBody>;
export type CouponChanges = Static<typeof couponChanges>;

export const CouponParams = Type.Object({ uuid_code: Type.String({ minLength: 1, maxLength: 255 }) });
export const ListCouponsQuery = ListQuery('standard');

const couponWireFields = {
  id: Type.Integer(),
  name: Type.String(),
  uuid_code: Type.String(),
  active: Type.Union([Type.Boolean(), Type.Null()]),
  coupon_discount_type: Type.String(),
  coupon_discount_amount: Type.Number(),
  coupon_duration_type: Type.String(),
  coupon_duration_value: Type.Union([Type.Integer(), Type.Null()]),
  redemption_specific_date_status: Type.Boolean(),
  redemption_specific_date_value: Type.Union([DateOnly, Type.Null()]),
  redemption_times_status: Type.Boolean(),
  redemption_times_value: Type.Union([Type.Integer(), Type.Null()]),
  times_redeemed: Type.Integer({ description: 'Redemptions of all the coupon’s codes' }),
  metadata: Type.Union(
    [Type.Array(Type.Never(), { maxItems: 0 }), Type.Record(Type.String(), Type.Unknown())],
    {
      description: 'An object; `[]` when empty',
    },
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: NullableTimestamp,
};

/** A coupon's own fields: what a promotion code's fetch shows as its `coupon`. */
export const CouponOfPromotionCode = Type.Object(couponWireFields, { title: 'CouponOfPromotionCode' });

export const Coupon = Type.Intersect(
  [CouponOfPromotionCode, Type.Object({ promotion_codes: Type.Array(PromotionCode) })],
  { title: 'Coupon' },
);

/** A coupon in a list: its codes as `{data: [...]}` (spec). */
export const CouponEntry = Type.Intersect(
  [CouponOfPromotionCode, Type.Object({ promotion_codes: Type.Object({ data: Type.Array(PromotionCode) }) })],
  { title: 'CouponEntry' },
);

/**
 * The answer of a coupon or promotion-code write: the record in `data`, and `message` with the
 * synchronization fields beside it (contract §4.21: a client SDK reads them at the top level).
 */
export const Synchronized = <T extends TSchema>(data: T, title: string) =>
  Type.Object(
    {
      data,
      status: Type.Literal(1),
      message: Type.String(),
      synchronization_enabled: Type.Boolean({ description: 'false: no payment provider is connected' }),
      synchronization_successful: Type.Boolean(),
      synchronization_message: Type.String(),
    },
    { title },
  );

export const CouponWrittenResponse = Synchronized(Coupon, 'CouponWrittenResponse');
export const CouponDeleted = Synchronized(
  Type.Object({ uuid_code: Type.String() }, { title: 'DeletedCoupon' }),
  'CouponDeletedResponse',
);

export const CouponResponse = Success(Coupon);
export const CouponListResponse = Paginated(CouponEntry);
