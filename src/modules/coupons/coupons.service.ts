import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import { booleanOf, switchOf } from '../../core/booleans.ts';
import {
  type CouponSettings,
  couponSettingsProblems,
  type DiscountType,
  type DurationType,
  type RedeemableCode,
} from '../../core/coupons.ts';
import { AppError, fieldError, validationError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import { amountOrThrow, microsFrom, microsToNumber } from '../../core/money.ts';
import type { PageRequest } from '../../core/pages.ts';
import { requestDigest } from '../../core/request-digest.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import type {
  PromotionCode,
  PromotionCodeSettingsInput,
} from '../promotion-codes/promotion-codes.item.schemas.ts';
import * as repository from './coupons.repository.ts';
import type { CouponChanges, CreateCouponBody, UpdateCouponBody } from './coupons.schemas.ts';

export type { CouponRow } from './coupons.repository.ts';

type CouponRow = repository.CouponRow;
type PromotionCodeOnWire = Static<typeof PromotionCode>;

/**
 * What a coupon's responses need of its promotion codes, handed in by the routes (the
 * promotion-codes module implements it): codes depend on coupons, never the other way round.
 */
export interface CouponCodes {
  /** The codes of these coupons on the wire, by coupon id. */
  of(
    db: Kysely<DB>,
    ctx: ProgramContext,
    couponIds: readonly number[],
  ): Promise<Map<number, PromotionCodeOnWire[]>>;
  /** Creates codes for a coupon in the coupon's transaction; field errors name `promotion_codes.N.…`. */
  createFor(
    trx: Kysely<DB>,
    ctx: ProgramContext,
    coupon: CouponRow,
    bodies: readonly PromotionCodeSettingsInput[],
  ): Promise<void>;
}

/** Spec: an unknown coupon is answered with exactly this message. */
export function couponNotFound(): AppError {
  return new AppError('not_found', 'Coupon not found');
}

/**
 * The answer of a coupon or promotion-code write (contract §4.21): the record in `data`, the
 * message and the synchronization fields beside it. No payment provider is connected to Vouch:
 * nothing is synchronized, and the answer says so.
 */
export function synchronizedAnswer<T>(data: T, message: string) {
  return {
    data,
    status: 1 as const,
    message,
    synchronization_enabled: false,
    synchronization_successful: false,
    synchronization_message: '',
  };
}

/** Empty metadata is `[]` on the wire (spec's coupon table). */
function metadataOnWire(stored: string): Record<string, unknown> | never[] {
  const parsed = JSON.parse(stored) as Record<string, unknown>;
  return Object.keys(parsed).length === 0 ? [] : parsed;
}

export function couponOnWire(row: CouponRow) {
  return {
    id: Number(row.id),
    name: row.name,
    uuid_code: row.uuid_code,
    active: Boolean(row.active),
    coupon_discount_type: row.discount_type,
    coupon_discount_amount: microsToNumber(microsFrom(row.discount_amount)),
    coupon_duration_type: row.duration_type,
    coupon_duration_value: row.duration_value,
    redemption_specific_date_status: Boolean(row.date_status),
    redemption_specific_date_value: row.date_value,
    redemption_times_status: Boolean(row.times_status),
    redemption_times_value: row.times_value,
    times_redeemed: Number(row.times_redeemed),
    metadata: metadataOnWire(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

/** The coupon's part of the redemption rule (core/coupons.ts). */
export function couponRedemptionFacts(
  row: Pick<
    CouponRow,
    'active' | 'deleted_at' | 'date_status' | 'date_value' | 'times_status' | 'times_value' | 'times_redeemed'
  >,
): RedeemableCode['coupon'] {
  return {
    active: Boolean(row.active),
    deleted: row.deleted_at !== null,
    lastDay: row.date_status ? row.date_value : null,
    limit: row.times_status ? row.times_value : null,
    timesRedeemed: Number(row.times_redeemed),
  };
}

function settingsOf(row: CouponRow): CouponSettings {
  return {
    discountType: row.discount_type as DiscountType,
    discountMicros: microsFrom(row.discount_amount),
    durationType: row.duration_type as DurationType,
    durationValue: row.duration_value,
    dateStatus: Boolean(row.date_status),
    dateValue: row.date_value,
    timesStatus: Boolean(row.times_status),
    timesValue: row.times_value,
  };
}

/** The settings a create or an update leaves, with the changes over `base`. */
function mergeSettings(base: CouponSettings, changes: CouponChanges): CouponSettings {
  const durationType = changes.coupon_duration_type ?? base.durationType;
  return {
    discountType: changes.coupon_discount_type ?? base.discountType,
    discountMicros:
      changes.coupon_discount_amount === undefined
        ? base.discountMicros
        : amountOrThrow(changes.coupon_discount_amount, 'coupon_discount_amount'),
    durationType,
    // A duration without a length (once, lifetime) drops the stored length unless one is sent.
    durationValue:
      changes.coupon_duration_value ??
      (durationType === 'once' || durationType === 'lifetime' ? null : base.durationValue),
    dateStatus: switchOf(changes.redemption_specific_date_status, base.dateStatus),
    dateValue:
      changes.redemption_specific_date_value === undefined
        ? base.dateValue
        : changes.redemption_specific_date_value,
    timesStatus: switchOf(changes.redemption_times_status, base.timesStatus),
    timesValue:
      changes.redemption_times_value === undefined ? base.timesValue : changes.redemption_times_value,
  };
}

function settingsOrThrow(settings: CouponSettings): CouponSettings {
  const problems = couponSettingsProblems(settings);
  if (problems.length > 0) throw validationError(problems);
  return settings;
}

function settingsColumns(settings: CouponSettings) {
  return {
    discount_type: settings.discountType,
    discount_amount: settings.discountMicros,
    duration_type: settings.durationType,
    duration_value: settings.durationValue,
    date_status: settings.dateStatus,
    date_value: settings.dateValue,
    times_status: settings.timesStatus,
    times_value: settings.timesValue,
  };
}

/** Metadata merged key by key; a null value removes its key. */
export function mergeMetadata(stored: string, changes: Record<string, unknown> | undefined): string {
  const merged = JSON.parse(stored) as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes ?? {})) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return JSON.stringify(merged);
}

async function withCodes(ctx: ProgramContext, codes: CouponCodes, row: CouponRow) {
  const byCoupon = await codes.of(ctx.database.db, ctx, [Number(row.id)]);
  return { ...couponOnWire(row), promotion_codes: byCoupon.get(Number(row.id)) ?? [] };
}

const EMPTY_SETTINGS: CouponSettings = {
  discountType: 'percent',
  discountMicros: 0n,
  durationType: 'once',
  durationValue: null,
  dateStatus: false,
  dateValue: null,
  timesStatus: false,
  timesValue: null,
};

/**
 * `POST /v1/coupons`: the coupon, and the codes given with it, all or nothing. Insert-or-replay
 * on `uuid_code` (core/insert-or-replay.ts): the same request again answers the stored coupon,
 * another request under a live coupon's `uuid_code` is 422 "taken".
 */
export async function createCoupon(ctx: ProgramContext, body: CreateCouponBody, codes: CouponCodes) {
  const settings = settingsOrThrow(mergeSettings(EMPTY_SETTINGS, body));
  const uuidCode = body.uuid_code ?? newKey();
  const programId = ctx.program.id;
  const digest = requestDigest(body);
  const row = await ctx.database.db.transaction().execute(async (trx) => {
    const outcome = await insertOrReplay({
      find: () => repository.findCouponByUuid(trx, programId, uuidCode),
      sameRequest: (stored) => stored.request_digest === digest,
      taken: () => fieldError('uuid_code', 'taken'),
      insert: async () => {
        const now = nowTimestamp(ctx.clock);
        const inserted = await repository.insertCouponIfFree(trx, {
          program_id: programId,
          uuid_code: uuidCode,
          name: body.name ?? uuidCode,
          active: booleanOf(body.active, true),
          ...settingsColumns(settings),
          metadata: mergeMetadata('{}', body.metadata),
          request_digest: digest,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        });
        if (inserted && body.promotion_codes?.length)
          await codes.createFor(trx, ctx, inserted, body.promotion_codes);
        return inserted;
      },
    });
    return 'created' in outcome ? outcome.created : outcome.replayed;
  });
  return synchronizedAnswer(await withCodes(ctx, codes, row), 'Coupon created in the app successfully.');
}

export async function getCouponOrThrow(db: Kysely<DB>, programId: number, uuidCode: string) {
  const row = await repository.findCouponByUuid(db, programId, uuidCode);
  if (!row) throw couponNotFound();
  return row;
}

export async function getCoupon(ctx: ProgramContext, uuidCode: string, codes: CouponCodes) {
  return withCodes(ctx, codes, await getCouponOrThrow(ctx.database.db, ctx.program.id, uuidCode));
}

/** Lists never fail: an empty page is `[]`. Each coupon's codes come as `{data: [...]}`. */
export async function listCoupons(ctx: ProgramContext, page: PageRequest, codes: CouponCodes) {
  const db = ctx.database.db;
  const rows = await repository.listCoupons(db, ctx.program.id, page);
  const byCoupon = await codes.of(
    db,
    ctx,
    rows.slice(0, page.limit).map((row) => Number(row.id)),
  );
  return rows.map((row) => ({
    ...couponOnWire(row),
    promotion_codes: { data: byCoupon.get(Number(row.id)) ?? [] },
  }));
}

/** The coupon an update names: the path, else the older integer `id`, else `uuid_code`. */
async function couponToUpdate(ctx: ProgramContext, segment: string | undefined, body: UpdateCouponBody) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  let row: CouponRow | undefined;
  if (segment !== undefined) row = await repository.findCouponByUuid(db, programId, segment);
  else if (body.id !== undefined) row = await repository.findLiveCouponById(db, programId, body.id);
  else if (body.uuid_code !== undefined)
    row = await repository.findCouponByUuid(db, programId, body.uuid_code);
  else throw fieldError('uuid_code', 'required');
  if (!row) throw couponNotFound();
  return row;
}

/**
 * `PUT /v1/coupons[/{uuid_code}]`: changes flat or in `update`; the settings are checked as they
 * will be stored (the change merged with the coupon), `metadata` is merged, `active` counts at
 * once (the redeeming statement reads it). Codes are not changed here.
 */
export async function updateCoupon(
  ctx: ProgramContext,
  segment: string | undefined,
  body: UpdateCouponBody,
  codes: CouponCodes,
) {
  const row = await couponToUpdate(ctx, segment, body);
  const { update, id: _id, uuid_code: _uuid, ...flat } = body;
  const changes: CouponChanges = update ?? flat;
  const settings = settingsOrThrow(mergeSettings(settingsOf(row), changes));
  const updated = await repository.updateCoupon(ctx.database.db, ctx.program.id, Number(row.id), {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.active !== undefined ? { active: booleanOf(changes.active, true) } : {}),
    ...settingsColumns(settings),
    metadata: mergeMetadata(row.metadata, changes.metadata),
    updated_at: nowTimestamp(ctx.clock),
  });
  if (!updated) throw couponNotFound();
  return synchronizedAnswer(await withCodes(ctx, codes, updated), 'Coupon updated in the app successfully.');
}

/** Deleting keeps the row (`deleted_at`): its codes are then refused as of a deleted coupon. */
export async function deleteCoupon(ctx: ProgramContext, uuidCode: string) {
  const row = await getCouponOrThrow(ctx.database.db, ctx.program.id, uuidCode);
  const now = nowTimestamp(ctx.clock);
  const deleted = await repository.updateCoupon(ctx.database.db, ctx.program.id, Number(row.id), {
    deleted_at: now,
    updated_at: now,
  });
  if (!deleted) throw couponNotFound();
  return synchronizedAnswer({ uuid_code: row.uuid_code }, 'Coupon deleted in the app successfully.');
}

// ---- for the promotion-codes module ----

/** The live coupon a code create names by `coupon_uuid` or `coupon_id`. */
export async function findLiveCoupon(
  db: Kysely<DB>,
  programId: number,
  ref: { uuid?: string | undefined; id?: number | undefined },
) {
  if (ref.uuid !== undefined) return repository.findCouponByUuid(db, programId, ref.uuid);
  if (ref.id !== undefined) return repository.findLiveCouponById(db, programId, ref.id);
  return undefined;
}

/** Coupons by id, deleted ones included: the coupons of codes being shown or redeemed. */
export const findCouponsByIds = (db: Kysely<DB>, programId: number, ids: readonly number[]) =>
  repository.findCouponsByIds(db, programId, ids);
