import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import type { PageRequest } from '../../core/pages.ts';
import { requestDigest } from '../../core/request-digest.ts';
import { nowTimestamp } from '../../core/time.ts';
import {
  type CouponCodes,
  type CouponRow,
  couponOnWire,
  findCouponsByIds,
  findLiveCoupon,
  synchronizedAnswer,
} from '../coupons/coupons.service.ts';
import { insertCodeIfFree, settingsColumns } from './promotion-codes.columns.ts';
import { redeemPromotionCode } from './promotion-codes.redeem.ts';
import * as repository from './promotion-codes.repository.ts';
import type {
  CreatePromotionCodeBody,
  PromotionCodeChanges,
  UpdatePromotionCodeBody,
} from './promotion-codes.schemas.ts';
import {
  getCodeRowOrThrow,
  type PromotionCodeOnWire,
  promotionCodeNotFound,
  serializeCode,
  serializeCodes,
  written,
} from './promotion-codes.wire.ts';

/** What the coupons module asks of codes (its responses list them; its create makes them). */
export const couponCodes: CouponCodes = {
  async of(db, ctx, couponIds) {
    const rows = await repository.listCodesOfCoupons(db, ctx.program.id, couponIds);
    const out = new Map<number, PromotionCodeOnWire[]>();
    const serialized = await serializeCodes(db, ctx.program.id, rows);
    serialized.forEach((code, i) => {
      const id = Number(rows[i]?.coupon_id);
      let list = out.get(id);
      if (!list) out.set(id, (list = []));
      list.push(code);
    });
    return out;
  },
  async createFor(trx, ctx, coupon, bodies) {
    for (const [i, body] of bodies.entries()) {
      const prefix = `promotion_codes.${i}.`;
      const row = await insertCodeIfFree(trx, ctx, coupon, body, { prefix, digest: null });
      if (!row) throw fieldError(`${prefix}code`, 'taken');
    }
  },
};

// ---- the resource ----

/**
 * `POST /v1/promotion-code(s)`: a code of the coupon named by `coupon_uuid` or `coupon_id`.
 * Insert-or-replay on the code's text (core/insert-or-replay.ts): the same request again answers
 * the stored code, another request under its text (in any case) is 422 "taken".
 */
export async function createPromotionCode(ctx: ProgramContext, body: CreatePromotionCodeBody) {
  const { coupon_uuid, coupon_id, ...input } = body;
  if (coupon_uuid === undefined && coupon_id === undefined) throw fieldError('coupon_uuid', 'required');
  const programId = ctx.program.id;
  const digest = requestDigest(body);
  const message = 'Promotion code created in the app successfully.';
  return ctx.database.db.transaction().execute(async (trx) => {
    let coupon: CouponRow | undefined;
    const insert = async () => {
      coupon = await findLiveCoupon(trx, programId, { uuid: coupon_uuid, id: coupon_id });
      if (!coupon) {
        const field = coupon_uuid !== undefined ? 'coupon_uuid' : 'coupon_id';
        throw fieldError(field, 'invalid');
      }
      return insertCodeIfFree(trx, ctx, coupon, input, { prefix: '', digest });
    };
    if (input.code === undefined) {
      // A generated code is new: there is nothing to replay.
      const row = await insert();
      if (!row) throw new AppError('unavailable', 'The promotion code could not be stored; try again.');
      return written(ctx, trx, row, message, coupon);
    }
    const code = input.code;
    const outcome = await insertOrReplay({
      find: () => repository.findPromotionCode(trx, programId, code),
      sameRequest: (stored) => stored.request_digest === digest,
      taken: () => fieldError('code', 'taken'),
      insert,
    });
    if ('created' in outcome) return written(ctx, trx, outcome.created, message, coupon);
    return written(ctx, trx, outcome.replayed, message);
  });
}

/** `GET /v1/promotion-codes/{code}`: the code with its coupon. */
export async function getPromotionCode(ctx: ProgramContext, code: string) {
  const db = ctx.database.db;
  const row = await getCodeRowOrThrow(db, ctx.program.id, code);
  const [coupon] = await findCouponsByIds(db, ctx.program.id, [Number(row.coupon_id)]);
  if (!coupon) throw promotionCodeNotFound();
  const serialized = await serializeCode(db, ctx.program.id, row, new Map([[Number(coupon.id), coupon]]));
  return { ...serialized, coupon: couponOnWire(coupon) };
}

/** Lists never fail: an unknown `coupon_uuid` filter is an empty page. */
export async function listPromotionCodes(
  ctx: ProgramContext,
  query: PageRequest & { coupon_uuid?: string | undefined },
) {
  const db = ctx.database.db;
  let couponId: number | undefined;
  if (query.coupon_uuid !== undefined) {
    const coupon = await findLiveCoupon(db, ctx.program.id, { uuid: query.coupon_uuid });
    if (!coupon) return [];
    couponId = Number(coupon.id);
  }
  const rows = await repository.listPromotionCodes(db, ctx.program.id, query, couponId);
  return serializeCodes(db, ctx.program.id, rows);
}

/**
 * `PUT /v1/promotion-codes[/{code}]`: changes flat or in `update`, then, with `redeem: true`, a
 * redemption. Limits and statuses are checked as they will be stored.
 */
export async function updatePromotionCode(
  ctx: ProgramContext,
  segment: string | undefined,
  body: UpdatePromotionCodeBody,
) {
  const { update, code, redeem, transaction_key, ...flat } = body;
  const name = segment ?? code;
  if (name === undefined) throw fieldError('code', 'required');
  const changes: PromotionCodeChanges = update ?? flat;
  const db = ctx.database.db;
  const changing = Object.values(changes).some((value) => value !== undefined);
  // A plain redemption reads the code once, in its own transaction.
  if (!changing && booleanOf(redeem, false)) return redeemPromotionCode(ctx, name, transaction_key);
  let row = await getCodeRowOrThrow(db, ctx.program.id, name);
  if (changing) {
    const columns = await settingsColumns(db, ctx, changes, row, update ? 'update.' : '');
    const updated = await repository.updatePromotionCode(db, ctx.program.id, Number(row.id), {
      ...columns,
      updated_at: nowTimestamp(ctx.clock),
    });
    if (!updated) throw promotionCodeNotFound();
    row = updated;
  }
  if (booleanOf(redeem, false)) return redeemPromotionCode(ctx, row.code, transaction_key);
  return written(ctx, db, row, 'Promotion code updated in the app successfully.');
}

/** `DELETE /v1/promotion-codes[/{code}]`: the code, when its coupon is the one named (if named). */
export async function deletePromotionCode(ctx: ProgramContext, code: string, couponUuid: string | undefined) {
  const db = ctx.database.db;
  const row = await getCodeRowOrThrow(db, ctx.program.id, code);
  if (couponUuid !== undefined) {
    const [coupon] = await findCouponsByIds(db, ctx.program.id, [Number(row.coupon_id)]);
    if (coupon?.uuid_code !== couponUuid) throw promotionCodeNotFound();
  }
  await repository.deletePromotionCode(db, ctx.program.id, Number(row.id));
  const message = 'Promotion code deleted in the app successfully.';
  return synchronizedAnswer({ status: 1 as const, message }, message);
}

// ---- redemption ----

export {
  findCodeForSale,
  partnerAttributedBy,
  type RedemptionTarget,
  redeemForSale,
  redeemInTransaction,
  redeemPromotionCode,
} from './promotion-codes.redeem.ts';
export { promotionCodeNotFound } from './promotion-codes.wire.ts';
