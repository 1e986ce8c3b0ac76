import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { BooleanLike, ErrorBody, Paginated, Success } from '../../http/schemas.ts';
import { CouponOfPromotionCode, Synchronized } from '../coupons/coupons.schemas.ts';
import {
  IdentifierCode,
  PromotionCode,
  promotionCodeSettingsFields,
} from './promotion-codes.item.schemas.ts';

/** Wire shapes of `/v1/promotion-code(s)…` (spec "Promotion codes"). */

export const CreatePromotionCodeBody = Type.Object(
  {
    coupon_uuid: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    coupon_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Accepted in place of `coupon_uuid`' })),
    code: Type.Optional(IdentifierCode),
    ...promotionCodeSettingsFields,
  },
  {
    title: 'CreatePromotionCodeBody',
    description:
      'The coupon by `coupon_uuid` (or `coupon_id`); `code` is generated when omitted. A status switch on requires its value (`coupon_specific_partners`, `minimum_order_value`, …).',
  },
);
export type CreatePromotionCodeBody = Static<typeof CreatePromotionCodeBody>;

const codeChanges = Type.Object(promotionCodeSettingsFields, { title: 'PromotionCodeChanges' });

export const UpdatePromotionCodeBody = Type.Object(
  {
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...promotionCodeSettingsFields,
    update: Type.Optional(codeChanges),
    redeem: Type.Optional(BooleanLike),
    transaction_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  {
    title: 'UpdatePromotionCodeBody',
    description:
      'Names the code by the path or `code`; changes flat or wrapped in `update`. With `redeem: true` the code is redeemed (after the changes, if any): refused with 422 and the reason when it cannot be; a `transaction_key` that already redeemed the code answers the code unchanged.',
  },
);
export type UpdatePromotionCodeBody = Static<typeof UpdatePromotionCodeBody>;
export type PromotionCodeChanges = Static<typeof codeChanges>;

export const PromotionCodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 255 }) });

/** `DELETE /v1/promotion-codes` names the code and its coupon in the body (merged into the query). */
export const DeletePromotionCodeQuery = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 255 }),
  coupon: Type.Object({ uuid_code: Type.String({ minLength: 1, maxLength: 255 }) }),
});
/** The path form may still name the coupon, which must then be the code's. */
export const DeletePromotionCodeByPathQuery = Type.Object({
  coupon: Type.Optional(
    Type.Partial(Type.Object({ uuid_code: Type.String({ minLength: 1, maxLength: 255 }) })),
  ),
});

export const ListPromotionCodesQuery = ListQuery('standard', {
  coupon_uuid: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Only this coupon’s codes' }),
  ),
});

export const PromotionCodeWithCoupon = Type.Intersect(
  [PromotionCode, Type.Object({ coupon: CouponOfPromotionCode })],
  { title: 'PromotionCodeWithCoupon' },
);

export const PromotionCodeWrittenResponse = Synchronized(PromotionCode, 'PromotionCodeWrittenResponse');

/** The spec's delete answer keeps its `data: {status, message}`; the top level is as for writes. */
export const PromotionCodeDeleted = Synchronized(
  Type.Object({ status: Type.Literal(1), message: Type.String() }, { title: 'PromotionCodeDeletion' }),
  'PromotionCodeDeletedResponse',
);

/** An unknown code on delete: the error body, plus the spec's `data.status` 0 and `data.message`. */
export const PromotionCodeNotDeleted = Type.Object(
  {
    ...ErrorBody.properties,
    // Absent when the request named no code that could exist (a malformed path id, say).
    data: Type.Optional(Type.Object({ status: Type.Literal(0), message: Type.String() })),
  },
  { title: 'PromotionCodeNotDeletedResponse' },
);

export const PromotionCodeResponse = Success(PromotionCodeWithCoupon);
export const PromotionCodeListResponse = Paginated(PromotionCode);
