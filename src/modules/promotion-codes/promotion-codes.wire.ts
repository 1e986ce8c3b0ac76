/** A promotion code on the wire, with its coupon, audience and redemptions; finding one by code. */
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import type { DB } from '../../db/tables.ts';
import { type CouponRow, findCouponsByIds, synchronizedAnswer } from '../coupons/coupons.service.ts';
import type { PromotionCode } from './promotion-codes.item.schemas.ts';
import type { PromotionCodeRow, RedemptionRow } from './promotion-codes.repository.ts';
import * as repository from './promotion-codes.repository.ts';

export type PromotionCodeOnWire = Static<typeof PromotionCode>;

export type Reference = { id: string; full_name: string; ref: number };

export type CustomerReference = { id: string; customer_full_name: string; ref: number };

export function promotionCodeNotFound(): AppError {
  return new AppError('not_found', 'Promotion code not found');
}

export function codeOnWire(row: PromotionCodeRow, couponUuid: string, redemptions: readonly RedemptionRow[]) {
  const partners = JSON.parse(row.partners) as Reference[];
  const customers = JSON.parse(row.customers) as CustomerReference[];
  return {
    code: row.code,
    coupon_uuid: couponUuid,
    first_time_order: Boolean(row.first_time_order),
    limit_to_specific_partner: Boolean(row.limit_partners),
    coupon_specific_partners: partners.map(({ id, full_name }) => ({ id, full_name })),
    limit_to_specific_customer: Boolean(row.limit_customers),
    coupon_specific_customers: customers.map(({ id, customer_full_name }) => ({ id, customer_full_name })),
    minimum_order_status: Boolean(row.minimum_order_status),
    minimum_order_value: row.minimum_order_value,
    expiration_date_status: Boolean(row.expiration_status),
    expiration_date_value: row.expiration_value,
    redemption_times_status: Boolean(row.times_status),
    redemption_times_value: row.times_value,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    times_redeemed: Number(row.times_redeemed),
    additional_info: {
      redemptions: redemptions.map((r) => ({
        redeemed_at: r.redeemed_at,
        transaction_key: r.transaction_key,
      })),
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Codes on the wire, with their coupon's `uuid_code` and their latest redemptions. */
export async function serializeCodes(
  db: Kysely<DB>,
  programId: number,
  rows: readonly PromotionCodeRow[],
  coupons?: ReadonlyMap<number, Pick<CouponRow, 'uuid_code'>>,
): Promise<PromotionCodeOnWire[]> {
  if (rows.length === 0) return [];
  const couponIds = [...new Set(rows.map((row) => Number(row.coupon_id)))];
  const known =
    coupons ?? new Map((await findCouponsByIds(db, programId, couponIds)).map((c) => [Number(c.id), c]));
  const redemptions = new Map<number, RedemptionRow[]>();
  for (const redemption of await repository.latestRedemptions(
    db,
    programId,
    rows.map((row) => Number(row.id)),
  )) {
    const id = Number(redemption.promotion_code_id);
    let list = redemptions.get(id);
    if (!list) redemptions.set(id, (list = []));
    list.push(redemption);
  }
  return rows.map((row) =>
    codeOnWire(row, known.get(Number(row.coupon_id))?.uuid_code ?? '', redemptions.get(Number(row.id)) ?? []),
  );
}

/** One code on the wire (`serializeCodes` answers one per row). */
export async function serializeCode(
  db: Kysely<DB>,
  programId: number,
  row: PromotionCodeRow,
  coupons?: ReadonlyMap<number, Pick<CouponRow, 'uuid_code'>>,
) {
  const [code] = await serializeCodes(db, programId, [row], coupons);
  if (code === undefined) throw new Error('a promotion code row serialized to nothing');
  return code;
}

export async function written(
  ctx: ProgramContext,
  db: Kysely<DB>,
  row: PromotionCodeRow,
  message: string,
  coupon?: Pick<CouponRow, 'id' | 'uuid_code'>,
) {
  const known = coupon ? new Map([[Number(coupon.id), coupon]]) : undefined;
  const code = await serializeCode(db, ctx.program.id, row, known);
  return synchronizedAnswer(code, message);
}

export async function getCodeRowOrThrow(db: Kysely<DB>, programId: number, code: string) {
  const row = await repository.findPromotionCode(db, programId, code);
  if (!row) throw promotionCodeNotFound();
  return row;
}
