import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { notFound } from '../../core/errors.ts';
import {
  decideFraud,
  decideSaleFraud,
  defaultFraudSettings,
  type FraudDecision,
  type FraudFacts,
  type FraudSettings,
} from '../../core/fraud.ts';
import { newKey } from '../../core/ids.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { dayOf, nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { readProgram } from '../program/program.service.ts';
import { addressNameOf, findClickFacts } from '../tracking/tracking.service.ts';
import type { FraudFlagRow } from './fraud.repository.ts';
import * as repository from './fraud.repository.ts';
import { fraudSettingsOfStored, type SaleEvidence, saleEvidenceReaderOf } from './fraud.sale-evidence.ts';
import type { FraudOutcome, ListFraudFlagsQuery, RequestContext } from './fraud.schemas.ts';
import {
  findSightings,
  ownerSightingFacts,
  type SightingLookup,
  sightingLookupOf,
} from './fraud.sightings.service.ts';
import { toFraudFlag } from './fraud.wire.ts';

/** The owner of a referral: a partner (affiliate) or a referring customer (refer-a-friend). */
export interface FraudOwner {
  kind: 'partner' | 'customer' | 'subscriber';
  id: number;
  /** Its public name: a partner's id, a referring customer's key. */
  ref: string;
  email: string | null;
}

export interface SignupFraudInput {
  email: string | null | undefined;
  owner: FraudOwner;
  context: RequestContext | undefined;
  at: string;
}

const nothing: FraudDecision = { blocked: false, fired: [] };

/**
 * The rules on a referred signup, in its transaction. A signup without `context` whose e-mail
 * fires nothing under the defaults costs no read at all; otherwise the program's settings are read
 * and, with an address, one upsert counts it for `same_address`.
 */
export async function decideSignupFraud(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  input: SignupFraudInput,
): Promise<FraudDecision> {
  const facts: FraudFacts = { email: input.email, ownerEmail: input.owner.email };
  const everyRule = { ...defaultFraudSettings, fraud_rules: everyRuleFlags };
  const { ip, click_id: clickId } = input.context ?? {};
  if (ip === undefined && clickId === undefined && decideFraud(facts, everyRule).fired.length === 0)
    return nothing;
  const settings = await fraudSettingsIn(trx, ctx);
  // The click the visitor came by, when it was the owner's: its landing URL (paid_ads).
  if (clickId !== undefined && settings.fraud_rules.paid_ads !== 'off') {
    const click = await ownersClick(trx, ctx, clickId, input.owner);
    if (click?.landingUrl != null) facts.landingUrl = click.landingUrl;
  }
  // An address or click the owner itself used in its portal (one primary-key lookup).
  if (settings.fraud_rules.same_address !== 'off' && (ip !== undefined || clickId !== undefined)) {
    const lookup = sightingLookupOf(ctx, input.context);
    Object.assign(facts, ownerSightingFacts(await findSightings(trx, ctx, lookup, input.owner), input.owner));
    facts.portalAddresses = lookup.addresses;
    if (clickId !== undefined) facts.visitor = clickId;
  }
  if (input.context?.ip !== undefined) {
    facts.address = await addressNameOf(trx, input.context.ip, input.at);
    facts.signupsFromAddress = await repository.countAddressSignup(
      trx,
      ctx.program.id,
      input.owner,
      facts.address,
      dayOf(input.at),
    );
  }
  return decideFraud(facts, settings);
}

async function fraudSettingsIn(trx: Kysely<DB>, ctx: ProgramContext): Promise<FraudSettings> {
  return fraudSettingsOfStored(ctx, (await readProgram(trx, ctx.program.id))?.settings);
}

/** A click of the program by its id, when it was a click on `owner`'s link; undefined otherwise. */
async function ownersClick(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  clickId: string,
  owner: { kind: string; id: number },
) {
  const click = await findClickFacts(trx, ctx.program.id, clickId);
  return click && click.owner.kind === owner.kind && click.owner.id === owner.id ? click : undefined;
}

/**
 * What a sale's own rules read (fraud.sale-evidence.ts), with the sightings' lookup. Undefined
 * when no sale rule can fire.
 */
export interface SaleClick extends SaleEvidence {
  lookup: SightingLookup;
}

/**
 * Reads what a sale's own rules need, before the sale writer runs (clicks and sightings are not
 * the sale's to lock): nothing when the request forwarded neither an address nor a click.
 */
export async function readSaleClick(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  context: RequestContext | undefined,
): Promise<SaleClick | undefined> {
  const clickId = context?.click_id;
  if (clickId === undefined && context?.ip === undefined) return undefined;
  const lookup = sightingLookupOf(ctx, context);
  const evidence = await saleEvidenceReaderOf(ctx)(trx, ctx, clickId, lookup);
  return evidence && { ...evidence, lookup };
}

/** The sale rules' decision for the sale's owner: its click only when it was the owner's. */
export function saleFraudOf(
  read: SaleClick | undefined,
  owner: { kind: string; id: number } | undefined,
  soldAt: string,
): FraudDecision {
  if (!read || !owner) return nothing;
  const facts: FraudFacts = {
    soldAt,
    portalAddresses: read.lookup.addresses,
    ...ownerSightingFacts(read.sightings, owner),
  };
  if (read.lookup.click !== undefined) facts.visitor = read.lookup.click;
  if (read.click && read.click.owner.kind === owner.kind && read.click.owner.id === owner.id)
    facts.clickedAt = read.click.clickedAt;
  return decideSaleFraud(facts, read.settings);
}

/**
 * Whether a sale's rules may fire for the owner it will have: a sighting of some owner, or a click
 * that fires now (time only makes `fast_conversion` stop firing). A sale for which this is false
 * may be written on the unlocked path.
 */
export function saleMayFire(read: SaleClick | undefined, now: string): boolean {
  if (!read) return false;
  if (read.sightings.length > 0) return true;
  return read.click !== undefined && saleFraudOf(read, read.click.owner, now).fired.length > 0;
}

/**
 * Whether a signup may fire a rule beyond self-referral (which needs its owner): it forwarded an
 * address or a click, or its e-mail alone fires one. A signup for which this is false reads nothing.
 */
export function signupMayFire(email: string | null | undefined, context: RequestContext | undefined) {
  if (context?.ip !== undefined || context?.click_id !== undefined) return true;
  const everyRule = { ...defaultFraudSettings, fraud_rules: everyRuleFlags };
  return decideFraud({ email }, everyRule).fired.length > 0;
}

const everyRuleFlags = {
  self_referral: 'flag',
  same_address: 'flag',
  disposable_email: 'flag',
  paid_ads: 'flag',
  fast_conversion: 'flag',
} as const;

/**
 * Opens one flag per rule that flagged the subject, each with its `fraud.flagged` event, in the
 * caller's transaction. Answers the flags' ids (the first, `firstId` when given, holds the
 * subject's money).
 */
export async function openFlags(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  decision: FraudDecision,
  subject: { kind: 'customer' | 'transaction' | 'subscriber'; id: number; ref: string },
  owner: Omit<FraudOwner, 'email'>,
  firstId: string = newKey(),
): Promise<{ id: number; publicId: string }[]> {
  const now = nowTimestamp(ctx.clock);
  const opened: { id: number; publicId: string }[] = [];
  for (const verdict of decision.fired) {
    if (verdict.action !== 'flag') continue;
    const row = await repository.insertFlag(trx, {
      program_id: ctx.program.id,
      public_id: opened.length === 0 ? firstId : newKey(),
      rule: verdict.rule,
      subject_kind: subject.kind,
      subject_id: subject.id,
      subject_ref: subject.ref,
      owner_kind: owner.kind,
      owner_id: owner.id,
      owner_ref: owner.ref,
      evidence: JSON.stringify(verdict.evidence),
      status: 'open',
      created_at: now,
      updated_at: now,
      resolved_at: null,
    });
    await recordEvent(trx, ctx.program.id, 'fraud.flagged', toFraudFlag(row), now);
    opened.push({ id: Number(row.id), publicId: row.public_id });
  }
  return opened;
}

/** What a create answers of the rules' decision; undefined when none fired. */
export function fraudOutcomeOf(
  decision: FraudDecision,
  flags: readonly { publicId: string }[],
): FraudOutcome | undefined {
  if (decision.fired.length === 0) return undefined;
  return {
    blocked: decision.blocked,
    rules: decision.fired.map((v) => ({ rule: v.rule, action: v.action === 'block' ? 'block' : 'flag' })),
    flags: flags.map((f) => f.publicId),
  };
}

// The review queue: list, read, clear and confirm flags.

export async function listFraudFlags(ctx: ProgramContext, query: ListFraudFlagsQuery & PageRequest) {
  const filter: repository.FlagFilter = {
    ...(query.status !== undefined ? { status: query.status } : {}),
    ...(query.rule !== undefined ? { rule: query.rule } : {}),
    ...(query.partner !== undefined ? { owner: { kind: 'partner', ref: query.partner } } : {}),
  };
  const rows = await repository.listFlags(
    ctx.database.db,
    ctx.program.id,
    filter,
    pageWindow(query),
    query.sort,
  );
  return rows.map(toFraudFlag);
}

async function getFlagRowOrThrow(db: Kysely<DB>, ctx: ProgramContext, id: string) {
  const row = await repository.findFlagByPublicId(db, ctx.program.id, id);
  if (!row) throw notFound('Fraud flag');
  return row;
}

export async function getFraudFlag(ctx: ProgramContext, id: string) {
  return toFraudFlag(await getFlagRowOrThrow(ctx.database.db, ctx, id));
}

/**
 * The flag named `id`, locked for its review until the caller's transaction ends (PostgreSQL); a
 * 404 when the program has no such flag.
 */
export async function lockFlagOrThrow(trx: Kysely<DB>, ctx: ProgramContext, id: string) {
  const found = await getFlagRowOrThrow(trx, ctx, id);
  return (await repository.lockFlag(trx, ctx.program.id, Number(found.id))) ?? found;
}

/** Marks a flag resolved and answers the customer's next open flag (which takes over the hold). */
export async function markFlagResolved(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  row: FraudFlagRow,
  to: 'cleared' | 'confirmed',
  now: string,
) {
  await repository.resolveFlag(trx, ctx.program.id, Number(row.id), to, now);
  const resolved = { ...row, status: to, updated_at: now, resolved_at: now };
  await recordEvent(
    trx,
    ctx.program.id,
    to === 'cleared' ? 'fraud.cleared' : 'fraud.confirmed',
    toFraudFlag(resolved),
    now,
  );
  return { resolved, next: await repository.findOtherOpenFlag(trx, ctx.program.id, row) };
}

export { type FraudFlagRow, toFraudFlag };
