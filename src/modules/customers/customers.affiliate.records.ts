import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { fieldError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { programMetrics } from '../../core/program-stats.ts';
import { storedTags, tagsOf } from '../../core/tags.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { addToEntityCounters } from '../counters/counters.repository.ts';
import type { FraudOutcome, RequestContext } from '../fraud/fraud.schemas.ts';
import { decideSignupFraud, fraudOutcomeOf, openFlags } from '../fraud/fraud.service.ts';
import { findPartnerByRef, type PartnerRef } from '../partners/partners.service.ts';
import { recordProgramActivity } from '../program/program.service.ts';
import { findLinkByKey, listLinksOf } from '../referral-links/referral-links.service.ts';
import { loadLinkUrlContext } from '../referral-links/referral-links.shared.ts';
import { findCustomerBy, insertCustomer, updateCustomer } from './customers.repository.ts';
import { type CustomerRow, signupTimeOrThrow } from './customers.shared.ts';

/**
 * Creating an affiliate customer: used by `POST /v1/customers` and by a transaction with
 * `options.create_customer`. Kept apart from the behaviour so transactions can import it.
 */

export interface NewAffiliateCustomer {
  key?: string;
  email?: string;
  name?: string;
  surname?: string;
  tags?: string[];
  created_at?: string;
  partner: PartnerRef;
  options?: { referral_url?: string };
  context?: RequestContext;
}

export function toAffiliateCustomerEntry(row: CustomerRow, partnerPublicId: string | null) {
  return {
    key: row.key,
    partner: partnerPublicId,
    deleted: row.deleted_at !== null,
    name: row.name,
    surname: row.surname,
    email: row.email,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

export function toAffiliateCustomer(row: CustomerRow, partnerPublicId: string | null) {
  return { ...toAffiliateCustomerEntry(row, partnerPublicId), tags: tagsOf(row.tags) };
}

/** The link key an `options.referral_url` carries in its referral parameter. */
function linkKeyOf(url: string, parameter: string): string | undefined {
  try {
    return new URL(url).searchParams.get(parameter) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks, inserts and counts a new customer of a partner, and records `customer.created`, in the
 * caller's transaction. `prefix` names the fields in errors (`customer.` inside a transaction).
 */
export async function insertAffiliateCustomer(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  input: NewAffiliateCustomer,
  prefix = '',
): Promise<CustomerRow> {
  return (await insertAffiliateCustomerDecided(trx, ctx, input, prefix)).row;
}

/**
 * As `insertAffiliateCustomer`, with what the fraud rules decided (core/fraud.ts). A block by
 * `self_referral` keeps the guard's treatment (stored with its partner, marked, earning nothing);
 * a block by another rule stores the customer without a partner; a flag opens a flag that holds
 * the customer's commissions until a person clears or confirms it.
 */
export async function insertAffiliateCustomerDecided(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  input: NewAffiliateCustomer,
  prefix = '',
): Promise<{ row: CustomerRow; fraud: FraudOutcome | undefined }> {
  const programId = ctx.program.id;
  const partner = await findPartnerByRef(trx, programId, input.partner);
  if (!partner) throw fieldError(`${prefix}partner`, 'invalid');
  if (partner.status === 'archived') throw fieldError(`${prefix}partner`, 'archived');
  let linkId: number | undefined;
  if (input.options?.referral_url !== undefined) {
    const context = await loadLinkUrlContext(trx, programId, 'affiliate', { withDomains: false });
    const key = linkKeyOf(input.options.referral_url, context.parameter);
    const link = key === undefined ? undefined : await findLinkByKey(trx, programId, key);
    if (!link || link.partner_id !== partner.id) throw fieldError('options.referral_url', 'invalid');
    linkId = link.id;
  } else {
    const links = await listLinksOf(trx, programId, { partnerId: partner.id });
    // `partner.key` is the key of the link followed (the `vouch_partner` cookie): that link
    // brought the customer; otherwise the default link did.
    const followed =
      input.partner.key === undefined ? undefined : links.find((l) => l.key === input.partner.key);
    linkId = (followed ?? links.find((link) => Boolean(link.is_default)) ?? links[0])?.id;
  }
  const key = input.key ?? newKey();
  if (await findCustomerBy(trx, programId, 'key', key)) throw fieldError(`${prefix}key`, 'taken');
  if (input.email !== undefined && (await findCustomerBy(trx, programId, 'email', input.email)))
    throw fieldError(`${prefix}email`, 'taken');
  const now = nowTimestamp(ctx.clock);
  const createdAt = signupTimeOrThrow(input.created_at, now, `${prefix}created_at`);
  const owner = { kind: 'partner' as const, id: partner.id, ref: partner.public_id, email: partner.email };
  const decision = await decideSignupFraud(trx, ctx, {
    email: input.email,
    owner,
    context: input.context,
    at: createdAt,
  });
  const selfReferral = decision.fired.some((v) => v.rule === 'self_referral' && v.action === 'block');
  const refused = decision.fired.some((v) => v.rule !== 'self_referral' && v.action === 'block');
  if (refused) linkId = undefined;
  const inserted = await insertCustomer(trx, {
    program_id: programId,
    public_id: newKey(),
    key,
    email: input.email ?? null,
    name: input.name ?? null,
    surname: input.surname ?? null,
    tags: storedTags(input.tags ?? []),
    partner_id: refused ? null : partner.id,
    referral_link_id: linkId ?? null,
    self_referral: selfReferral,
    created_at: createdAt,
    updated_at: now,
  });
  // Taken since the checks above, by a request that committed in between.
  if ('taken' in inserted) throw fieldError(`${prefix}${inserted.taken}`, 'taken');
  const stored = inserted.inserted;
  const flags = refused
    ? []
    : await openFlags(trx, ctx, decision, { kind: 'customer', id: stored.id, ref: stored.key }, owner);
  const first = flags[0];
  const row =
    first === undefined
      ? stored
      : await updateCustomer(trx, programId, stored.id, { fraud_flag: first.publicId });
  if (!refused) {
    const signup = { [partnerMetrics.signups]: 1 };
    await addToEntityCounters(trx, programId, { kind: 'partner', id: partner.id }, signup);
    if (linkId !== undefined) await addToEntityCounters(trx, programId, { kind: 'link', id: linkId }, signup);
  }
  await recordProgramActivity(trx, programId, createdAt, {
    [programMetrics.customers]: 1,
    [programMetrics.referredCustomers]: refused ? 0 : 1,
    [programMetrics.rejectedSelfReferrals]: selfReferral ? 1 : 0,
  });
  const ownerId = refused ? null : partner.public_id;
  await recordEvent(trx, programId, 'customer.created', toAffiliateCustomer(row, ownerId), now);
  return { row, fraud: fraudOutcomeOf(decision, flags) };
}
