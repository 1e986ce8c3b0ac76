import { createCoupon, getCoupon, listCoupons, updateCoupon } from '../coupons/coupons.service.ts';
import {
  couponCodes,
  createPromotionCode,
  deletePromotionCode,
} from '../promotion-codes/promotion-codes.service.ts';
import { found, refusedAsErrors } from './console.outcomes.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** Coupons and their promotion codes, through their services as `/v1/coupons` and `/v1/promotion-codes`. */

export { CreateCouponBody } from '../coupons/coupons.schemas.ts';
export { CreatePromotionCodeBody } from '../promotion-codes/promotion-codes.schemas.ts';

import type { CreateCouponBody } from '../coupons/coupons.schemas.ts';
import type { CreatePromotionCodeBody } from '../promotion-codes/promotion-codes.schemas.ts';

export const PAGE_SIZE = 50;

export const discountChoices = [
  { value: 'percent', label: 'A percentage' },
  { value: 'static', label: 'A fixed amount' },
] as const;

export const durationChoices = [
  { value: 'once', label: 'Once' },
  { value: 'hours', label: 'A number of hours' },
  { value: 'days', label: 'A number of days' },
  { value: 'months', label: 'A number of months' },
  { value: 'years', label: 'A number of years' },
  { value: 'lifetime', label: 'For ever' },
] as const;

type CouponWire = Awaited<ReturnType<typeof getCoupon>>;

const discountOf = (coupon: Pick<CouponWire, 'coupon_discount_type' | 'coupon_discount_amount'>) =>
  coupon.coupon_discount_type === 'percent'
    ? `${coupon.coupon_discount_amount} %`
    : `${coupon.coupon_discount_amount} off`;

const durationOf = (coupon: Pick<CouponWire, 'coupon_duration_type' | 'coupon_duration_value'>) =>
  coupon.coupon_duration_value !== null && coupon.coupon_duration_type !== 'once'
    ? `${coupon.coupon_duration_value} ${coupon.coupon_duration_type}`
    : coupon.coupon_duration_type;

export async function couponsPage(program: ConsoleProgram, page: number) {
  const rows = await listCoupons(program.ctx, { page, limit: PAGE_SIZE, sort: 'desc' }, couponCodes);
  return {
    items: rows.slice(0, PAGE_SIZE).map((row) => ({
      uuid: row.uuid_code,
      name: row.name,
      active: row.active !== false,
      discount: discountOf(row),
      duration: durationOf(row),
      codes: row.promotion_codes.data.length,
    })),
    hasNext: rows.length > PAGE_SIZE,
  };
}

/** One coupon with its codes; undefined for another program's or an unknown one. */
export async function couponDetail(program: ConsoleProgram, uuid: string) {
  const coupon = await found(() => getCoupon(program.ctx, uuid, couponCodes));
  if (!coupon) return undefined;
  return {
    uuid: coupon.uuid_code,
    name: coupon.name,
    active: coupon.active !== false,
    discount: discountOf(coupon),
    duration: durationOf(coupon),
    codes: coupon.promotion_codes.map((code) => ({
      code: code.code,
      expires: code.expiration_date_status ? (code.expiration_date_value ?? '') : '',
      limit: code.redemption_times_status ? (code.redemption_times_value ?? null) : null,
    })),
  };
}

export type CouponDetail = NonNullable<Awaited<ReturnType<typeof couponDetail>>>;

/** A text field as the API's body has it: a whole number as a number, anything else as sent. */
export const numberOrText = (text: string): number | string =>
  /^-?\d{1,15}$/.test(text) ? Number(text) : text;

export const addCoupon = (program: ConsoleProgram, body: CreateCouponBody) =>
  refusedAsErrors(async () => {
    const coupon = await createCoupon(program.ctx, body, couponCodes);
    await logActivity(program, 'coupon.create', {
      subject: coupon.data.uuid_code,
      changes: { name: { before: null, after: coupon.data.name } },
    });
    return coupon.data.uuid_code;
  }, 'name');

/** `Deactivate` / `Activate`: a deactivated coupon's codes are refused at checkout. */
export async function setActive(program: ConsoleProgram, coupon: CouponDetail, active: boolean) {
  await updateCoupon(program.ctx, coupon.uuid, { active }, couponCodes);
  await logActivity(program, active ? 'coupon.activate' : 'coupon.deactivate', {
    subject: coupon.uuid,
    changes: coupon.active === active ? {} : { active: { before: coupon.active, after: active } },
  });
}

export const addCode = (program: ConsoleProgram, body: CreatePromotionCodeBody) =>
  refusedAsErrors(async () => {
    const code = await createPromotionCode(program.ctx, body);
    await logActivity(program, 'promotion_code.create', {
      subject: code.data.code,
      changes: { coupon: { before: null, after: body.coupon_uuid ?? '' } },
    });
  }, 'code');

/** Deletes a code of the coupon; false when the coupon has no such code. */
export async function removeCode(program: ConsoleProgram, coupon: CouponDetail, code: string) {
  if (!coupon.codes.some((c) => c.code === code)) return false;
  await deletePromotionCode(program.ctx, code, coupon.uuid);
  await logActivity(program, 'promotion_code.delete', {
    subject: code,
    changes: { coupon: { before: coupon.uuid, after: null } },
  });
  return true;
}
