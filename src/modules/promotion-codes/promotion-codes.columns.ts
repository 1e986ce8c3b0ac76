/** The stored columns of a code from a create or update body: audience, settings, a generated code when none is given. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { switchOf } from '../../core/booleans.ts';
import { requiredWhenOn } from '../../core/coupons.ts';
import { type FieldProblem, problem, validationError } from '../../core/errors.ts';
import { randomAlphanumeric } from '../../core/ids.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { type CouponRow, mergeMetadata } from '../coupons/coupons.service.ts';
import { findCustomerByRef } from '../customers/customers.service.ts';
import { findPartnerByRef } from '../partners/partners.service.ts';
import type { PromotionCodeSettingsInput } from './promotion-codes.item.schemas.ts';
import type { PromotionCodeRow } from './promotion-codes.repository.ts';
import * as repository from './promotion-codes.repository.ts';
import type { PromotionCodeChanges } from './promotion-codes.schemas.ts';
import type { CustomerReference, Reference } from './promotion-codes.wire.ts';

/**
 * Who a program type's codes may be limited to: its partners, its customers (a type without
 * them refuses both the list and its switch). Adding a type is adding a row.
 */
export const codeAudiences: Record<ProgramType, { partners: boolean; customers: boolean }> = {
  affiliate: { partners: true, customers: true },
  referral: { partners: false, customers: true },
  newsletter: { partners: false, customers: false },
};

/** One audience's limit as the body names it: the list, its switch, and how a listed id resolves. */
export interface AudienceLimit<Given extends { id: string }> {
  list: 'coupon_specific_partners' | 'coupon_specific_customers';
  on: 'limit_to_specific_partner' | 'limit_to_specific_customer';
  allowed: boolean;
  given: readonly Given[] | undefined;
  switchGiven: PromotionCodeChanges['limit_to_specific_partner'];
  stored: { on: boolean; list: string };
  resolve: (given: Given) => Promise<unknown | undefined>;
}

/** An audience limit's columns (switch and resolved list), its problems pushed to `problems`. */
export async function audienceColumns<Given extends { id: string }>(
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
export async function settingsColumns(
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
export const generatedCode = () => randomAlphanumeric(10).toUpperCase();

/**
 * Inserts a code of `coupon`, its settings checked; undefined when its text is taken in the
 * program (`ON CONFLICT DO NOTHING`: no error, which on PostgreSQL would abort the transaction).
 */
export async function insertCodeIfFree(
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
