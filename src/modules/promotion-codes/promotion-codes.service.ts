import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import { booleanOf, switchOf } from '../../core/booleans.ts';
import {
  attributedPartner,
  type RedeemableCode,
  type RedemptionOrder,
  redemptionRefusal,
  requiredWhenOn,
} from '../../core/coupons.ts';
import { AppError, type FieldProblem, fieldError, problem, validationError } from '../../core/errors.ts';
import { randomAlphanumeric } from '../../core/ids.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import type { PageRequest } from '../../core/pages.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { requestDigest } from '../../core/request-digest.ts';
import { dayOf, nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import {
  type CouponCodes,
  type CouponRow,
  couponOnWire,
  couponRedemptionFacts,
  findCouponsByIds,
  findLiveCoupon,
  mergeMetadata,
  synchronizedAnswer,
} from '../coupons/coupons.service.ts';
import { findCustomerByRef } from '../customers/customers.service.ts';
import { findPartnerById, findPartnerByRef } from '../partners/partners.service.ts';
import type { PromotionCode, PromotionCodeSettingsInput } from './promotion-codes.item.schemas.ts';
import type {
  CodeOfRedemption,
  CouponOfCode,
  PromotionCodeRow,
  RedemptionRow,
} from './promotion-codes.repository.ts';
import * as repository from './promotion-codes.repository.ts';
import type {
  CreatePromotionCodeBody,
  PromotionCodeChanges,
  UpdatePromotionCodeBody,
} from './promotion-codes.schemas.ts';

type PromotionCodeOnWire = Static<typeof PromotionCode>;
type Reference = { id: string; full_name: string; ref: number };
type CustomerReference = { id: string; customer_full_name: string; ref: number };

export function promotionCodeNotFound(): AppError {
  return new AppError('not_found', 'Promotion code not found');
}

// ---- on the wire ----

function codeOnWire(row: PromotionCodeRow, couponUuid: string, redemptions: readonly RedemptionRow[]) {
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
async function serializeCodes(
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
async function serializeCode(
  db: Kysely<DB>,
  programId: number,
  row: PromotionCodeRow,
  coupons?: ReadonlyMap<number, Pick<CouponRow, 'uuid_code'>>,
) {
  const [code] = await serializeCodes(db, programId, [row], coupons);
  if (code === undefined) throw new Error('a promotion code row serialized to nothing');
  return code;
}

async function written(
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

// ---- settings: create and update ----

/**
 * Who a program type's codes may be limited to: its partners, its customers (a type without
 * them refuses both the list and its switch). Adding a type is adding a row.
 */
const codeAudiences: Record<ProgramType, { partners: boolean; customers: boolean }> = {
  affiliate: { partners: true, customers: true },
  referral: { partners: false, customers: true },
  newsletter: { partners: false, customers: false },
};

/** One audience's limit as the body names it: the list, its switch, and how a listed id resolves. */
interface AudienceLimit<Given extends { id: string }> {
  list: 'coupon_specific_partners' | 'coupon_specific_customers';
  on: 'limit_to_specific_partner' | 'limit_to_specific_customer';
  allowed: boolean;
  given: readonly Given[] | undefined;
  switchGiven: PromotionCodeChanges['limit_to_specific_partner'];
  stored: { on: boolean; list: string };
  resolve: (given: Given) => Promise<unknown | undefined>;
}

/** An audience limit's columns (switch and resolved list), its problems pushed to `problems`. */
async function audienceColumns<Given extends { id: string }>(
  limit: AudienceLimit<Given>,
  prefix: string,
  problems: FieldProblem[],
): Promise<{ on: boolean; list: string }> {
  const found: FieldProblem[] = [];
  const on = switchOf(limit.switchGiven, limit.stored.on);
  let list = limit.stored.list;
  if (limit.given !== undefined) {
    if (!limit.allowed) found.push(problem(`${prefix}${limit.list}`, 'prohibited'));
    const resolved: unknown[] = [];
    for (const [i, given] of limit.given.entries()) {
      const reference = limit.allowed ? await limit.resolve(given) : undefined;
      if (reference !== undefined) resolved.push(reference);
      else if (limit.allowed) found.push(problem(`${prefix}${limit.list}.${i}.id`, 'invalid'));
    }
    list = JSON.stringify(resolved);
  }
  if (on && !limit.allowed) found.push(problem(`${prefix}${limit.on}`, 'prohibited'));
  else if (on && (JSON.parse(list) as unknown[]).length === 0 && found.length === 0)
    found.push(requiredWhenOn(`${prefix}${limit.list}`, limit.on));
  problems.push(...found);
  return { on, list };
}

/** The columns a code's settings set, checked and with its partners and customers resolved. */
async function settingsColumns(
  db: Kysely<DB>,
  ctx: ProgramContext,
  input: PromotionCodeChanges,
  base: PromotionCodeRow | undefined,
  prefix: string,
) {
  const programId = ctx.program.id;
  const audience = codeAudiences[ctx.program.type];
  const problems: FieldProblem[] = [];
  const partners = await audienceColumns(
    {
      list: 'coupon_specific_partners',
      on: 'limit_to_specific_partner',
      allowed: audience.partners,
      given: input.coupon_specific_partners,
      switchGiven: input.limit_to_specific_partner,
      stored: { on: Boolean(base?.limit_partners ?? false), list: base ? base.partners : '[]' },
      resolve: async (given): Promise<Reference | undefined> => {
        const partner = await findPartnerByRef(db, programId, { id: given.id });
        if (!partner) return undefined;
        const fullName = given.full_name ?? [partner.name, partner.surname].filter((part) => part).join(' ');
        return { id: given.id, full_name: fullName, ref: Number(partner.id) };
      },
    },
    prefix,
    problems,
  );
  const customers = await audienceColumns(
    {
      list: 'coupon_specific_customers',
      on: 'limit_to_specific_customer',
      allowed: audience.customers,
      given: input.coupon_specific_customers,
      switchGiven: input.limit_to_specific_customer,
      stored: { on: Boolean(base?.limit_customers ?? false), list: base ? base.customers : '[]' },
      resolve: async (given): Promise<CustomerReference | undefined> => {
        const customer =
          (await findCustomerByRef(db, programId, { id: given.id })) ??
          (await findCustomerByRef(db, programId, { key: given.id }));
        if (!customer) return undefined;
        const fullName =
          given.customer_full_name ?? [customer.name, customer.surname].filter(Boolean).join(' ');
        return { id: given.id, customer_full_name: fullName, ref: Number(customer.id) };
      },
    },
    prefix,
    problems,
  );
  const requireValue = (field: string, status: string) =>
    problems.push(requiredWhenOn(`${prefix}${field}`, status));

  const pick = <T>(given: T | undefined, stored: T) => (given === undefined ? stored : given);
  const minimumStatus = switchOf(input.minimum_order_status, Boolean(base?.minimum_order_status ?? false));
  const minimumValue = pick(input.minimum_order_value, base?.minimum_order_value ?? null);
  if (minimumStatus && minimumValue === null) requireValue('minimum_order_value', 'minimum_order_status');
  const expirationStatus = switchOf(input.expiration_date_status, Boolean(base?.expiration_status ?? false));
  const expirationValue = pick(input.expiration_date_value, base?.expiration_value ?? null);
  if (expirationStatus && expirationValue === null)
    requireValue('expiration_date_value', 'expiration_date_status');
  const timesStatus = switchOf(input.redemption_times_status, Boolean(base?.times_status ?? false));
  const timesValue = pick(input.redemption_times_value, base?.times_value ?? null);
  if (timesStatus && timesValue === null) requireValue('redemption_times_value', 'redemption_times_status');

  if (problems.length > 0) throw validationError(problems);
  return {
    first_time_order: switchOf(input.first_time_order, Boolean(base?.first_time_order ?? false)),
    limit_partners: partners.on,
    partners: partners.list,
    limit_customers: customers.on,
    customers: customers.list,
    minimum_order_status: minimumStatus,
    minimum_order_value: minimumValue,
    expiration_status: expirationStatus,
    expiration_value: expirationValue,
    times_status: timesStatus,
    times_value: timesValue,
    metadata: mergeMetadata(base?.metadata ?? '{}', input.metadata),
  };
}

/** Generated codes: ten upper-case letters and digits, easy to type (codes compare case-insensitively). */
const generatedCode = () => randomAlphanumeric(10).toUpperCase();

/**
 * Inserts a code of `coupon`, its settings checked; undefined when its text is taken in the
 * program (`ON CONFLICT DO NOTHING`: no error, which on PostgreSQL would abort the transaction).
 */
async function insertCodeIfFree(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  coupon: CouponRow,
  body: PromotionCodeSettingsInput,
  options: { prefix: string; digest: string | null },
) {
  const { code: given, ...settings } = body;
  const columns = await settingsColumns(trx, ctx, settings, undefined, options.prefix);
  const code = given ?? generatedCode();
  const now = nowTimestamp(ctx.clock);
  return repository.insertPromotionCodeIfFree(trx, {
    program_id: ctx.program.id,
    coupon_id: Number(coupon.id),
    code,
    code_lower: code.toLowerCase(),
    ...columns,
    request_digest: options.digest,
    created_at: now,
    updated_at: now,
  });
}

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

async function getCodeRowOrThrow(db: Kysely<DB>, programId: number, code: string) {
  const row = await repository.findPromotionCode(db, programId, code);
  if (!row) throw promotionCodeNotFound();
  return row;
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

/** A code with its coupon, as read for a redemption. */
export interface RedemptionTarget {
  code: CodeOfRedemption;
  coupon: CouponOfCode;
}

function refs(stored: string): number[] {
  return (JSON.parse(stored) as { ref: number }[]).map((r) => Number(r.ref));
}

function redeemableOf({ code, coupon }: RedemptionTarget): RedeemableCode {
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

async function readTarget(
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

interface RedeemOptions {
  transactionKey?: string | undefined;
  order?: RedemptionOrder;
  field: string;
}

/** The counted code when `answered`, `true` when counted without it, undefined on a replay. */
async function redeem(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  target: RedemptionTarget,
  options: RedeemOptions,
  answered: true,
): Promise<PromotionCodeRow | undefined>;
async function redeem(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  target: RedemptionTarget,
  options: RedeemOptions,
  answered: false,
): Promise<true | undefined>;
async function redeem(
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
