/** One refer-a-friend customer: found by its path segment, shown with its links and figures, created with its referrer. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { fieldError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { customerMetrics } from '../../core/sales.ts';
import { isSelfReferral } from '../../core/self-referral.ts';
import { referralSignupFigures } from '../../core/signups.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { addToEntityCounters, CounterFigures, readEntityCounters } from '../counters/counters.repository.ts';
import { recordProgramActivity } from '../program/program.service.ts';
import { findLinkByKey, insertLink } from '../referral-links/referral-links.service.ts';
import { type LinkUrlContext, loadLinkUrlContext } from '../referral-links/referral-links.shared.ts';
import { recordOf, referrerRefOf } from './customers.referral.records.ts';
import * as referralRepository from './customers.referral.repository.ts';
import * as repository from './customers.repository.ts';
import {
  type CustomerRow,
  findCustomerByRef,
  getCustomerByPathOrThrow,
  signupTimeOrThrow,
} from './customers.shared.ts';

/** `id` first, then `key`: an SDK's find passes either in the path. */
export const PATH_ORDER = ['public_id', 'key'] as const;

/** Pass the transaction when inside one: SQLite has a single connection. */
export function linkContext(ctx: ProgramContext, db: Kysely<DB> = ctx.database.db): Promise<LinkUrlContext> {
  return loadLinkUrlContext(db, ctx.program.id, 'referral', { withDomains: false });
}

export async function getReferralCustomerOrThrow(db: Kysely<DB>, ctx: ProgramContext, segment: string) {
  return getCustomerByPathOrThrow(db, ctx.program.id, segment, PATH_ORDER);
}

/**
 * A customer with everything its responses show: its record (with its referrer's record or
 * null), its figures and links. Reads the customer and its referrer together (one statement on
 * PostgreSQL besides the link settings, customers.referral.repository.ts).
 */
export async function loadReferralCustomer(db: Kysely<DB>, ctx: ProgramContext, row: CustomerRow) {
  const programId = ctx.program.id;
  const referrerId = row.referring_customer_id === null ? Number(row.id) : Number(row.referring_customer_id);
  const [links, { referrer, links: linkRows, counters }] = await Promise.all([
    linkContext(ctx, db),
    referralRepository.customerBundle(db, programId, Number(row.id), referrerId),
  ]);
  const own = counters.get(Number(row.id)) ?? new CounterFigures();
  const record = {
    ...recordOf(row, linkRows, own, links),
    referring_customer: referrer
      ? recordOf(referrer, linkRows, counters.get(referrerId) ?? new CounterFigures(), links)
      : null,
  };
  const ownLinks = linkRows.filter((link) => Number(link.customer_id) === Number(row.id));
  return { record, counters: own, links: ownLinks, linkContext: links };
}

/** The full customer record, with its referrer's record (or null). */
export async function toReferralCustomer(db: Kysely<DB>, ctx: ProgramContext, row: CustomerRow) {
  return (await loadReferralCustomer(db, ctx, row)).record;
}

export interface NewReferralCustomer {
  id?: string | undefined;
  key?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
  surname?: string | undefined;
  metadata?: { date_of_birth?: string | null } | undefined;
  created_at?: string | undefined;
  referrer?: CustomerRow | undefined;
}

/**
 * The referrer a body names (`id` wins over `key`, then `email`), or 422 on `field`. Archived
 * customers refer nobody: their links stop attributing.
 */
export async function resolveReferrer(
  db: Kysely<DB>,
  ctx: ProgramContext,
  ref: { id?: string | undefined; key?: string | undefined; email?: string | undefined } | undefined,
  field: string,
): Promise<CustomerRow | undefined> {
  const given = referrerRefOf(ref, field);
  if (given === undefined) return undefined;
  let row = await findCustomerByRef(db, ctx.program.id, given);
  // The `vouch_referral` cookie carries the key of the link followed, which for an additional
  // link is not the customer's own key.
  if (!row && !given.id && given.key) {
    const link = await findLinkByKey(db, ctx.program.id, given.key, 'customer');
    if (link?.customer_id != null)
      row = await repository.findCustomerById(db, ctx.program.id, link.customer_id);
  }
  if (!row || row.status === 'archived') throw fieldError(field, 'invalid');
  return row;
}

/**
 * Inserts a customer with its default link and feeds every counter, in `trx`. Used by the create
 * endpoint and by transactions with `options.create_customer`.
 */
export async function insertReferralCustomer(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  input: NewReferralCustomer,
) {
  const now = nowTimestamp(ctx.clock);
  // Only a sale's `options.create_customer` passes a signup time: its field is the sale's customer.
  const createdAt = signupTimeOrThrow(input.created_at, now, 'customer.created_at');
  const referrer = input.referrer;
  const selfReferral = referrer !== undefined && isSelfReferral(input.email, referrer.email);
  const inserted = await repository.insertCustomer(trx, {
    program_id: ctx.program.id,
    public_id: input.id ?? newKey(),
    key: input.key ?? newKey(),
    email: input.email ?? null,
    name: input.name ?? null,
    surname: input.surname ?? null,
    metadata: JSON.stringify({ date_of_birth: input.metadata?.date_of_birth ?? null }),
    referring_customer_id: referrer?.id ?? null,
    self_referral: selfReferral,
    created_at: createdAt,
    updated_at: now,
  });
  if ('taken' in inserted) throw fieldError(inserted.taken, 'taken');
  const row = inserted.inserted;
  const link = await insertLink(trx, {
    program_id: ctx.program.id,
    key: row.key,
    customer_id: row.id,
    is_default: true,
    created_at: now,
    updated_at: now,
  });
  // The key is another customer's additional link.
  if (!link) throw fieldError('key', 'taken');
  // PostgreSQL: the referrer's row is locked and its version moved on (migration 0023) before
  // its count is read, so this signup and a concurrent one written at once (`createAtOnce`) never
  // both take the referrer's first referral.
  if (referrer) await repository.lockCustomer(trx, ctx.program.id, referrer.id);
  const before = referrer
    ? await readEntityCounters(trx, ctx.program.id, { kind: 'customer', id: referrer.id })
    : undefined;
  const figures = referralSignupFigures({
    referred: referrer !== undefined,
    selfReferral,
    referrerReferralsBefore: before?.count(customerMetrics.referralsCount) ?? 0,
  });
  // Program figures first, then the referrer's: every writer takes them in this order (PostgreSQL
  // row locks), so a signup and a sale of the same referrer cannot deadlock.
  await recordProgramActivity(trx, ctx.program.id, createdAt, figures.program);
  if (referrer && figures.referrer)
    await addToEntityCounters(trx, ctx.program.id, { kind: 'customer', id: referrer.id }, figures.referrer);
  return row;
}
