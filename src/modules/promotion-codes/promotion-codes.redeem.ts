/** Redeeming a code, by a sale or on its own: decided by core rules, counted atomically (ADR 0043). */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import {
  attributedPartner,
  type RedeemableCode,
  type RedemptionOrder,
  redemptionRefusal,
} from '../../core/coupons.ts';
import { fieldError } from '../../core/errors.ts';
import { dayOf, nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { couponRedemptionFacts } from '../coupons/coupons.service.ts';
import { findPartnerById } from '../partners/partners.service.ts';
import type { CodeOfRedemption, CouponOfCode, PromotionCodeRow } from './promotion-codes.repository.ts';
import * as repository from './promotion-codes.repository.ts';
import { promotionCodeNotFound, written } from './promotion-codes.wire.ts';

/** A code with its coupon, as read for a redemption. */
export interface RedemptionTarget {
  code: CodeOfRedemption;
  coupon: CouponOfCode;
}

export function refs(stored: string): number[] {
  return (JSON.parse(stored) as { ref: number }[]).map((r) => Number(r.ref));
}

export function redeemableOf({ code, coupon }: RedemptionTarget): RedeemableCode {
  return {
    coupon: couponRedemptionFacts(coupon),
    lastDay: code.expiration_status ? code.expiration_value : null,
    limit: code.times_status ? code.times_value : null,
    timesRedeemed: Number(code.times_redeemed),
    firstTimeOrder: Boolean(code.first_time_order),
    minimumOrder: code.minimum_order_status ? code.minimum_order_value : null,
    partnerIds: code.limit_partners ? refs(code.partners) : null,
    customerIds: code.limit_customers ? refs(code.customers) : null,
  };
}

export async function readTarget(
  db: Kysely<DB>,
  programId: number,
  code: string,
): Promise<RedemptionTarget | undefined> {
  return repository.findCodeWithCoupon(db, programId, code);
}

/**
 * The code a sale names (`promotion_code`), read in the sale's transaction; an unknown code is a
 * 422 on `field`.
 */
export async function findCodeForSale(trx: Kysely<DB>, ctx: ProgramContext, code: string, field: string) {
  const target = await readTarget(trx, ctx.program.id, code);
  if (!target) throw fieldError(field, 'invalid');
  return target;
}

/**
 * The partner (its public id) a sale's new customer gets when the sale names none: the code's
 * only partner, if it is limited to exactly one.
 */
export async function partnerAttributedBy(trx: Kysely<DB>, ctx: ProgramContext, target: RedemptionTarget) {
  const id = attributedPartner(redeemableOf(target));
  if (id === null) return undefined;
  return (await findPartnerById(trx, ctx.program.id, id))?.public_id;
}

/**
 * Redeems the code in `trx`: the rule of core/coupons.ts decides (with the order, for a sale), then
 * the redemption row and the code's and coupon's counts are written by conditional statements, so
 * concurrent redemptions never pass a limit. A transaction key that already redeemed the code
 * answers it unchanged. A refusal is a 422 on `field` naming the reason; the caller's transaction
 * then writes nothing.
 */
export async function redeemInTransaction(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  target: RedemptionTarget,
  options: RedeemOptions,
): Promise<PromotionCodeRow> {
  const counted = await redeem(trx, ctx, target, options, true);
  if (counted) return counted;
  // A replay: the stored redemption refers to the code, so it is there unless deleted meanwhile.
  const stored = await repository.findPromotionCode(trx, ctx.program.id, target.code.code);
  if (!stored) throw promotionCodeNotFound();
  return stored;
}

/**
 * `redeemInTransaction` for a sale, which answers no code: the same rule and writes, without
 * reading back the counted code (or, on a replay, the stored one).
 */
export async function redeemForSale(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  target: RedemptionTarget,
  options: RedeemOptions & { order: RedemptionOrder },
): Promise<void> {
  await redeem(trx, ctx, target, options, false);
}

export interface RedeemOptions {
  transactionKey?: string | undefined;
  order?: RedemptionOrder;
  field: string;
}

/** The counted code when `answered`, `true` when counted without it, undefined on a replay. */
export async function redeem(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  target: RedemptionTarget,
  options: RedeemOptions,
  answered: true,
): Promise<PromotionCodeRow | undefined>;

export async function redeem(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  target: RedemptionTarget,
  options: RedeemOptions,
  answered: false,
): Promise<true | undefined>;

export async function redeem(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  target: RedemptionTarget,
  options: RedeemOptions,
  answered: boolean,
): Promise<PromotionCodeRow | true | undefined> {
  const programId = ctx.program.id;
  const codeId = Number(target.code.id);
  const now = nowTimestamp(ctx.clock);
  const today = dayOf(now);
  const key = options.transactionKey;
  // The redemption row first: a key that already redeemed the code yields nothing and answers the
  // code unchanged, before any rule (a retry after the limit was reached still succeeds).
  const recorded = await repository.insertRedemption(trx, {
    program_id: programId,
    promotion_code_id: codeId,
    transaction_key: key ?? null,
    redeemed_at: now,
  });
  if (!recorded) return undefined;
  const refuse = (current: RedemptionTarget, fallback: string) => {
    const refusal = redemptionRefusal(redeemableOf(current), today, options.order);
    return fieldError(options.field, 'refused', refusal?.message ?? fallback);
  };
  // A refusal throws, and the caller's transaction takes the redemption row back.
  if (redemptionRefusal(redeemableOf(target), today, options.order)) throw refuse(target, '');
  // The code's and its coupon's counts in one conditional statement: when it changes nothing, a
  // concurrent redemption took the last one (or the coupon changed), and the rule names why.
  const counted = answered
    ? await repository.countCodeRedemption(trx, programId, codeId, today)
    : (await repository.countCodeRedemptionOnly(trx, programId, codeId, today)) || undefined;
  if (!counted) {
    const current = (await readTarget(trx, programId, target.code.code)) ?? target;
    throw refuse(current, 'The promotion code can no longer be redeemed.');
  }
  return counted;
}

/** `PUT /v1/promotion-codes` with `redeem: true`. */
export async function redeemPromotionCode(
  ctx: ProgramContext,
  code: string,
  transactionKey: string | undefined,
) {
  const programId = ctx.program.id;
  return ctx.database.inWriteTransaction(async (trx) => {
    const target = await readTarget(trx, programId, code);
    if (!target) throw promotionCodeNotFound();
    const row = await redeemInTransaction(trx, ctx, target, { transactionKey, field: 'code' });
    // The coupon's own figures are not part of a code's answer: the row read before counting serves.
    return written(ctx, trx, row, 'Promotion code redeemed successfully.', target.coupon);
  });
}
