import { type FieldProblem, problem } from './errors.ts';
import { MICROS_PER_UNIT, type Micros } from './money.ts';

/**
 * The rules of coupons and promotion codes, without I/O: which coupon settings hold together
 * (create, and update after the change is merged with what is stored), and whether a promotion
 * code may be redeemed now, for this order. The redeeming statement repeats the limit and state
 * conditions atomically; this rule decides the answer and its reason.
 */

export const discountTypes = ['percent', 'static'] as const;
export type DiscountType = (typeof discountTypes)[number];
export const durationTypes = ['once', 'hours', 'days', 'months', 'years', 'lifetime'] as const;
export type DurationType = (typeof durationTypes)[number];

const HUNDRED_PERCENT = 100n * MICROS_PER_UNIT;

/** A coupon's settings as they will be stored (after an update's merge). */
export interface CouponSettings {
  discountType: DiscountType;
  discountMicros: Micros;
  durationType: DurationType;
  durationValue: number | null;
  dateStatus: boolean;
  dateValue: string | null;
  timesStatus: boolean;
  timesValue: number | null;
}

/** What is wrong with a coupon's settings, a problem per field at most; empty when nothing. */
export function couponSettingsProblems(settings: CouponSettings): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const amount = 'coupon_discount_amount';
  if (settings.discountType === 'percent') {
    if (settings.discountMicros <= 0n) problems.push(problem(amount, 'gt', 0));
    else if (settings.discountMicros > HUNDRED_PERCENT) problems.push(problem(amount, 'max', 100));
  } else if (settings.discountMicros % MICROS_PER_UNIT !== 0n) {
    problems.push(problem(amount, 'integer'));
  } else if (settings.discountMicros < MICROS_PER_UNIT) {
    problems.push(problem(amount, 'min', 1));
  }
  const duration = 'coupon_duration_value';
  const needsValue = settings.durationType !== 'once' && settings.durationType !== 'lifetime';
  if (needsValue && settings.durationValue === null) {
    problems.push(problem(duration, 'requiredWhen', 'coupon_duration_type', settings.durationType));
  }
  if (!needsValue && settings.durationValue !== null) {
    problems.push(problem(duration, 'prohibitedWhen', 'coupon_duration_type', settings.durationType));
  }
  if (settings.dateStatus && settings.dateValue === null) {
    problems.push(requiredWhenOn('redemption_specific_date_value', 'redemption_specific_date_status'));
  }
  if (settings.timesStatus && settings.timesValue === null) {
    problems.push(requiredWhenOn('redemption_times_value', 'redemption_times_status'));
  }
  return problems;
}

/** Laravel's `required_if` for a value its status switch (a field path) asks for. */
export function requiredWhenOn(field: string, status: string): FieldProblem {
  return problem(field, 'requiredWhen', status, 'on');
}

/** The coupon and code as the redemption rule sees them. */
export interface RedeemableCode {
  coupon: {
    active: boolean;
    deleted: boolean;
    /** Last day (`YYYY-MM-DD`) of redemption, when the coupon has one. */
    lastDay: string | null;
    limit: number | null;
    timesRedeemed: number;
  };
  lastDay: string | null;
  limit: number | null;
  timesRedeemed: number;
  firstTimeOrder: boolean;
  /** Whole units of the order's currency. */
  minimumOrder: number | null;
  /** Internal ids of the partners/customers the code is limited to; null when not limited. */
  partnerIds: readonly number[] | null;
  customerIds: readonly number[] | null;
}

/** The order a code is redeemed for (a sale); a plain redemption has none. */
export interface RedemptionOrder {
  amountMicros: Micros;
  /** Sales the buyer made before this one. */
  salesBefore: number;
  partnerId: number | null;
  customerId: number;
}

export type RefusalReason =
  | 'coupon_deleted'
  | 'coupon_inactive'
  | 'coupon_expired'
  | 'coupon_limit'
  | 'code_expired'
  | 'code_limit'
  | 'first_time_order'
  | 'minimum_order'
  | 'partner'
  | 'customer';

export interface Refusal {
  reason: RefusalReason;
  message: string;
}

/**
 * Whether the code may be redeemed on `today` (`YYYY-MM-DD`, UTC) for `order`, or why not. A
 * date is the last day of redemption, inclusive. The first reason found is given, in the order a
 * person fixes them: the coupon, the code, then the order.
 */
export function redemptionRefusal(
  code: RedeemableCode,
  today: string,
  order?: RedemptionOrder,
): Refusal | undefined {
  const { coupon } = code;
  if (coupon.deleted)
    return { reason: 'coupon_deleted', message: 'The coupon of this promotion code has been deleted.' };
  if (!coupon.active)
    return { reason: 'coupon_inactive', message: 'The coupon of this promotion code is not active.' };
  if (coupon.lastDay !== null && today > coupon.lastDay) {
    return {
      reason: 'coupon_expired',
      message: `The coupon of this promotion code expired on ${coupon.lastDay}.`,
    };
  }
  if (coupon.limit !== null && coupon.timesRedeemed >= coupon.limit) {
    return {
      reason: 'coupon_limit',
      message: `The coupon of this promotion code has reached its redemption limit of ${coupon.limit}.`,
    };
  }
  if (code.lastDay !== null && today > code.lastDay) {
    return { reason: 'code_expired', message: `The promotion code expired on ${code.lastDay}.` };
  }
  if (code.limit !== null && code.timesRedeemed >= code.limit) {
    return {
      reason: 'code_limit',
      message: `The promotion code has reached its redemption limit of ${code.limit}.`,
    };
  }
  if (!order) return undefined;
  if (code.firstTimeOrder && order.salesBefore > 0) {
    return { reason: 'first_time_order', message: 'The promotion code is valid for first-time orders only.' };
  }
  if (code.minimumOrder !== null && order.amountMicros < BigInt(code.minimumOrder) * MICROS_PER_UNIT) {
    return {
      reason: 'minimum_order',
      message: `The promotion code requires an order of at least ${code.minimumOrder}.`,
    };
  }
  if (code.partnerIds !== null && (order.partnerId === null || !code.partnerIds.includes(order.partnerId))) {
    return { reason: 'partner', message: 'The promotion code is limited to other partners.' };
  }
  if (code.customerIds !== null && !code.customerIds.includes(order.customerId)) {
    return { reason: 'customer', message: 'The promotion code is limited to other customers.' };
  }
  return undefined;
}

/** The partner a sale's new customer is given when the sale names none: the code's only partner. */
export function attributedPartner(code: Pick<RedeemableCode, 'partnerIds'>): number | null {
  const [only, ...others] = code.partnerIds ?? [];
  return only !== undefined && others.length === 0 ? only : null;
}
