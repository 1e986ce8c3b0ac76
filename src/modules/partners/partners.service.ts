import type { Kysely, Updateable } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { fieldError, validationError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { hashPassword, verifyPassword } from '../../core/passwords.ts';
import { storedTags } from '../../core/tags.ts';
import { nowTimestamp } from '../../core/time.ts';
import { splitUpdateBody } from '../../core/update-body.ts';
import type { PartnersTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';
import { queueEmail, recordEvent } from '../../outbox/outbox.ts';
import { readEntityCountersWithDays } from '../counters/counters.repository.ts';
import { getProgramNameAndWebsite } from '../program/program.service.ts';
import {
  findLinkByKey,
  insertLink,
  listLinksOf,
  updateLink,
} from '../referral-links/referral-links.service.ts';
import { loadLinkUrlContext, referralLinkUrl, trackingUrl } from '../referral-links/referral-links.shared.ts';
import { checkPassword, payoutValuesOrThrow, resolveReferringPartner } from './partners.inputs.ts';
import {
  findPartnerByRef,
  getPartnerByPathOrThrow,
  type PartnerRef,
  partnerNotFound,
} from './partners.lookup.ts';
import * as repository from './partners.repository.ts';
import type { CreatePartnerBody, UpdatePartnerBody } from './partners.schemas.ts';
import type { PartnerRow } from './partners.shared.ts';
import {
  amountsOf,
  type SettleCommissions,
  serializePartner,
  serializePartnerDetail,
  toPartnerEntry,
} from './partners.wire.ts';

export { passwordProblems } from '../../core/passwords.ts';
export {
  findPartnerByRef,
  getPartnerByPathOrThrow,
  type PartnerRef,
  partnerNamesByPublicIds,
  partnerNotFound,
} from './partners.lookup.ts';

export type { PartnerRow } from './partners.shared.ts';

/** A partner by internal id, for a module that stores the id (works inside the caller's transaction). */
export const findPartnerById = (db: Kysely<DB>, programId: number, id: number) =>
  repository.findPartnerById(db, programId, id);

/** Several partners by internal id at once, for lists that show each row's partner. */
export const findPartnersByIds = (db: Kysely<DB>, programId: number, ids: readonly number[]) =>
  repository.findPartnersByIds(db, programId, ids);

export async function createPartner(ctx: ProgramContext, body: CreatePartnerBody) {
  const payout = payoutValuesOrThrow(body, { method: null, details: null }, '');
  const errors = checkPassword('password', body.password);
  if (errors.length > 0) throw validationError(errors);
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const passwordHash =
    body.password !== undefined ? await hashPassword(body.password, ctx.config.passwordHashing) : null;
  return db.transaction().execute(async (trx) => {
    // Stamped inside the transaction, where the row's place in creation order is decided.
    const now = nowTimestamp(ctx.clock);
    const parentId = await resolveReferringPartner(trx, programId, body.referring_partner);
    const inserted = await repository.insertPartner(trx, {
      program_id: programId,
      public_id: body.id ?? newKey(),
      email: body.email,
      name: body.name ?? null,
      surname: body.surname ?? null,
      password_hash: passwordHash,
      ...(body.tos !== undefined ? { tos: body.tos } : {}),
      ...(body.approved !== undefined ? { approved: body.approved } : {}),
      tags: storedTags(body.tags ?? []),
      referring_partner_id: parentId,
      created_at: now,
      updated_at: now,
      ...payout,
    });
    // A taken id, e-mail or key is refused inside the transaction, which then writes nothing.
    if ('taken' in inserted) throw fieldError(inserted.taken, 'taken');
    const row = inserted.inserted;
    const link = await insertLink(trx, {
      program_id: programId,
      key: body.key ?? newKey(),
      partner_id: row.id,
      is_default: true,
      created_at: now,
      updated_at: now,
    });
    if (!link) throw fieldError('key', 'taken');
    const partner = await serializePartner(trx, programId, row);
    await recordEvent(trx, programId, 'partner.created', partner, now);
    return partner;
  });
}

export async function getPartner(ctx: ProgramContext, segment: string, settle: SettleCommissions) {
  const db = ctx.database.db;
  return serializePartnerDetail(ctx, await getPartnerByPathOrThrow(db, ctx.program.id, segment), settle);
}

/** `GET /v1/partner?key=|email=|id=`: one partner, named by the query. */
export async function findPartner(ctx: ProgramContext, ref: PartnerRef, settle: SettleCommissions) {
  const db = ctx.database.db;
  const row = await findPartnerByRef(db, ctx.program.id, ref);
  if (!row) throw partnerNotFound();
  return serializePartnerDetail(ctx, row, settle);
}

export async function listPartners(
  ctx: ProgramContext,
  query: PageRequest & { status?: string; approved?: boolean },
) {
  const rows = await repository.listPartners(
    ctx.database.db,
    ctx.program.id,
    {
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.approved !== undefined ? { approved: query.approved } : {}),
    },
    pageWindow(query),
    query.sort,
  );
  return rows.map(toPartnerEntry);
}

export async function searchPartners(
  ctx: ProgramContext,
  query: PageRequest & PartnerRef & { status?: string },
) {
  const rows = await repository.listPartners(
    ctx.database.db,
    ctx.program.id,
    {
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.id !== undefined ? { publicId: query.id } : {}),
      ...(query.email !== undefined ? { email: query.email } : {}),
      ...(query.key !== undefined ? { linkKey: query.key } : {}),
    },
    pageWindow(query),
    query.sort,
  );
  return rows.map(toPartnerEntry);
}

async function getPartnerForRequestOrThrow(
  db: Kysely<DB>,
  programId: number,
  segment: string | undefined,
  ref?: PartnerRef,
) {
  if (segment !== undefined) return getPartnerByPathOrThrow(db, programId, segment);
  if (!ref || Object.keys(ref).length === 0) throw fieldError('id', 'required');
  const row = await findPartnerByRef(db, programId, ref);
  if (!row) throw partnerNotFound();
  return row;
}

/** `PUT /v1/partners/{id}` or `PUT /v1/partners` with `id`, `email` or `key` in the body. */
export async function updatePartner(
  ctx: ProgramContext,
  segment: string | undefined,
  body: UpdatePartnerBody,
) {
  const { ref, changes } = splitUpdateBody(segment, body, ['id', 'key', 'email']);
  const errors = checkPassword(body.update ? 'update.password' : 'password', changes.password);
  if (errors.length > 0) throw validationError(errors);
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const passwordHash =
    changes.password !== undefined
      ? await hashPassword(changes.password, ctx.config.passwordHashing)
      : undefined;
  const now = nowTimestamp(ctx.clock);
  const prefix = body.update ? 'update.' : '';
  return db.transaction().execute(async (trx) => {
    const row = await getPartnerForRequestOrThrow(trx, programId, segment, ref);
    const values: Updateable<PartnersTable> = { updated_at: now };
    if (changes.email !== undefined) values.email = changes.email;
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.surname !== undefined) values.surname = changes.surname;
    if (changes.tags !== undefined) values.tags = storedTags(changes.tags);
    if (passwordHash !== undefined) values.password_hash = passwordHash;
    const payout = payoutValuesOrThrow(
      changes,
      { method: row.payout_method, details: row.payout_details },
      prefix,
    );
    if (payout) Object.assign(values, payout);
    const written = await repository.updatePartnerUnlessTaken(trx, programId, row.id, values);
    if ('taken' in written) throw fieldError(`${prefix}${written.taken}`, 'taken');
    const updated = written.updated;
    if (changes.key !== undefined)
      await renameDefaultLink(trx, programId, row.id, changes.key, now, `${prefix}key`);
    const partner = await serializePartner(trx, programId, updated);
    await recordEvent(trx, programId, 'partner.updated', partner, now);
    return partner;
  });
}

async function renameDefaultLink(
  trx: Kysely<DB>,
  programId: number,
  partnerId: number,
  key: string,
  now: string,
  field: string,
) {
  const links = await listLinksOf(trx, programId, { partnerId });
  const current = links.find((link) => Boolean(link.is_default));
  if (!current || current.key === key) return;
  const taken = await findLinkByKey(trx, programId, key);
  if (taken) throw fieldError(field, 'taken');
  await updateLink(trx, programId, current.id, { key, updated_at: now });
}

async function setStatus(
  ctx: ProgramContext,
  segment: string,
  change: (row: PartnerRow) => Updateable<PartnersTable> | undefined,
  event?: 'partner.archived' | 'partner.approved' | 'partner.rejected',
) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getPartnerByPathOrThrow(trx, programId, segment);
    const values = change(row);
    if (!values) return;
    const updated = await repository.updatePartner(trx, programId, row.id, { ...values, updated_at: now });
    if (event) await recordEvent(trx, programId, event, await serializePartner(trx, programId, updated), now);
  });
}

/** Archive hides the partner from lists and stops its links from bringing customers. */
export const archivePartner = (ctx: ProgramContext, segment: string) =>
  setStatus(
    ctx,
    segment,
    (row) =>
      row.status === 'archived' ? undefined : { status: 'archived', status_before_archive: row.status },
    'partner.archived',
  );

export const revokeArchivePartner = (ctx: ProgramContext, segment: string) =>
  setStatus(ctx, segment, (row) =>
    row.status === 'archived'
      ? { status: row.status_before_archive ?? 'active', status_before_archive: null }
      : undefined,
  );

export const approvePartner = (ctx: ProgramContext, segment: string) =>
  setStatus(
    ctx,
    segment,
    (row) => ({ approved: true, ...(row.status === 'pending' ? { status: 'active' } : {}) }),
    'partner.approved',
  );

export const rejectPartner = (ctx: ProgramContext, segment: string) =>
  setStatus(
    ctx,
    segment,
    (row) => ({ approved: false, ...(row.status === 'active' ? { status: 'pending' } : {}) }),
    'partner.rejected',
  );

/** `DELETE /v1/partners/{id}` or `DELETE /v1/partners` with `id`, `email` or `key`. */
/**
 * Takes a partner about to be deleted out of the payouts not paid yet, in the delete's
 * transaction. The payouts module owns it (and looks partners up here), so the route hands it in.
 */
export type DropPartnerFromPayouts = (
  trx: Kysely<DB>,
  ctx: ProgramContext,
  partnerId: number,
) => Promise<void>;

export async function deletePartner(
  ctx: ProgramContext,
  segment: string | undefined,
  ref: PartnerRef,
  dropFromPayouts: DropPartnerFromPayouts,
) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getPartnerForRequestOrThrow(trx, programId, segment, ref);
    const partner = await serializePartner(trx, programId, row);
    await dropFromPayouts(trx, ctx, row.id);
    await repository.deletePartner(trx, programId, row.id);
    await recordEvent(trx, programId, 'partner.deleted', partner, now);
  });
}

/**
 * The partner whose e-mail (case-insensitively) and password these are, or undefined: the sign-in
 * check of the partner portal. A hash made with older scrypt parameters is replaced by one with
 * the current parameters on success (issue 9). An unknown partner costs a hash too
 * (verifyPassword), so timing tells nothing.
 */
export async function signInPartner(ctx: ProgramContext, email: string, password: string) {
  const row = await repository.findPartnerBy(ctx.database.db, ctx.program.id, 'email', email);
  const { valid, rehashed } = await verifyPassword(password, row?.password_hash, ctx.config.passwordHashing);
  if (!row || !valid) return undefined;
  if (!rehashed) return row;
  return repository.updatePartner(ctx.database.db, ctx.program.id, row.id, { password_hash: rehashed });
}

/** Whether `password` is the partner's (found by e-mail): `signInPartner` as a yes or no. */
export async function checkPartnerPassword(ctx: ProgramContext, email: string, password: string) {
  return (await signInPartner(ctx, email, password)) !== undefined;
}

/** A partner by e-mail, case-insensitively (the portal's sign-in link and password reset). */
export const findPartnerByEmail = (db: Kysely<DB>, programId: number, email: string) =>
  repository.findPartnerBy(db, programId, 'email', email);

/**
 * What the partner portal's dashboard shows of a partner, all from counters (never a scan): its
 * links, counts, revenue and commissions per currency by state, and its clicks per day from
 * `from` on. Due commissions are settled first, as the partner fetch does.
 */
export async function getPartnerDashboardFigures(
  ctx: ProgramContext,
  row: PartnerRow,
  settleDueCommissions: SettleCommissions,
  clicksFrom: string,
) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const owner = { kind: 'partner', id: row.id } as const;
  const read = await readEntityCountersWithDays(db, programId, owner, partnerMetrics.clicks, clicksFrom);
  let counters = read.figures;
  const clicksByDay = read.days;
  const inReview = [...counters].some(
    ([metric, value]) => metric.startsWith('commission_pending:') && value !== 0n,
  );
  if (inReview && (await settleDueCommissions(ctx, row.id)))
    counters = await repository.readPartnerCounters(db, programId, row.id);
  const links = await listLinksOf(db, programId, { partnerId: row.id });
  const withDomains = links.some((link) => link.domain_id !== null);
  const urls = await loadLinkUrlContext(db, programId, 'affiliate', { withDomains });
  return {
    links: links.map((link) => ({
      key: link.key,
      url: referralLinkUrl(link, urls),
      trackingUrl: trackingUrl(ctx, link.key),
      isDefault: Boolean(link.is_default),
    })),
    clicks: counters.count(partnerMetrics.clicks),
    signups: counters.count(partnerMetrics.signups),
    salesCount: counters.count(partnerMetrics.salesCount),
    paidAccounts: counters.count(partnerMetrics.paidAccounts),
    revenue: amountsOf(counters, 'revenue:'),
    commissions: {
      pending: amountsOf(counters, 'commission_pending:'),
      approved: amountsOf(counters, 'commission_not_paid:'),
      paid: amountsOf(counters, 'commission_paid:'),
    },
    clicksByDay: clicksByDay.map((day) => ({ day: day.day, value: Number(day.value) })),
  };
}

/** `POST /v1/partners:invite`: queues an invitation e-mail. */
export async function invitePartner(
  ctx: ProgramContext,
  body: { email: string; name: string; surname?: string },
) {
  const db = ctx.database.db;
  const program = await getProgramNameAndWebsite(db, ctx.program.id);
  const fullName = [body.name, body.surname].filter(Boolean).join(' ');
  const site = program.website ? ` (${program.website})` : '';
  const text = `Hello ${fullName},\n\nYou are invited to become a partner of ${program.name}${site}.\n`;
  const html = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  await queueEmail(
    db,
    ctx.program.id,
    {
      to: body.email,
      subject: `Join the ${program.name} partner program`,
      text,
      html: `<p>Hello ${html(fullName)},</p><p>You are invited to become a partner of ${html(program.name)}${html(site)}.</p>`,
    },
    nowTimestamp(ctx.clock),
  );
}

export { type SettleCommissions, serializePartner, toPartnerEntry } from './partners.wire.ts';
