import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { fieldError } from '../../core/errors.ts';
import { exactPageWindow, type PageRequest, pageWindow } from '../../core/pages.ts';
import { nowTimestamp } from '../../core/time.ts';
import { takenFieldError } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import {
  deleteLink,
  findLinkByKey,
  insertLink,
  listLinksOf,
  searchLinks,
  updateLink,
} from '../referral-links/referral-links.service.ts';
import {
  domainUrl,
  type LinkUrlContext,
  linkNotFound,
  loadLinkUrlContext,
  type ReferralLinkRow,
  toReferralLink,
} from '../referral-links/referral-links.shared.ts';
import * as repository from './partners.links.repository.ts';
import type {
  CreatePartnerLinkBody,
  SearchPartnerLinksQuery,
  UpdatePartnerLinkBody,
} from './partners.links.schemas.ts';
import { findPartnerByRef, getPartnerByPathOrThrow } from './partners.lookup.ts';

/** Partner referral links: every partner has a default link (its key); more can be added. */

const urls = (db: Kysely<DB>, ctx: ProgramContext): Promise<LinkUrlContext> =>
  loadLinkUrlContext(db, ctx.program.id, 'affiliate');

async function getLinkOrThrow(db: Kysely<DB>, ctx: ProgramContext, key: string): Promise<ReferralLinkRow> {
  const row = await findLinkByKey(db, ctx.program.id, key, 'partner');
  if (!row) throw linkNotFound();
  return row;
}

export async function createPartnerLink(ctx: ProgramContext, body: CreatePartnerLinkBody) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  if (Object.keys(body.partner).length === 0) throw fieldError('partner', 'required');
  if (body.domain_id !== undefined && body.is_additional === undefined)
    throw fieldError('is_additional', 'required');
  const partner = await findPartnerByRef(db, programId, body.partner);
  if (!partner) throw fieldError('partner', 'invalid');
  let domainId: number | null = null;
  if (body.domain_id !== undefined) {
    const domain = await repository.findDomain(db, programId, Number(body.domain_id));
    if (!domain) throw fieldError('domain_id', 'invalid');
    domainId = domain.id;
  }
  if (await findLinkByKey(db, programId, body.key)) throw fieldError('key', 'taken');
  const now = nowTimestamp(ctx.clock);
  const row = await insertLink(db, {
    program_id: programId,
    key: body.key,
    partner_id: partner.id,
    is_default: false,
    is_additional: booleanOf(body.is_additional, false),
    domain_id: domainId,
    created_at: now,
    updated_at: now,
  });
  // Taken by a link created since the check above.
  if (!row) throw fieldError('key', 'taken');
  return toReferralLink(row, await urls(db, ctx), ctx);
}

export async function getPartnerLink(ctx: ProgramContext, key: string) {
  const db = ctx.database.db;
  return toReferralLink(await getLinkOrThrow(db, ctx, key), await urls(db, ctx), ctx);
}

/** `PUT`: a new key; renaming the default link renames the partner's `key` too. */
export async function updatePartnerLink(ctx: ProgramContext, key: string, body: UpdatePartnerLinkBody) {
  const db = ctx.database.db;
  const row = await getLinkOrThrow(db, ctx, key);
  if (body.key !== row.key && (await findLinkByKey(db, ctx.program.id, body.key)))
    throw fieldError('key', 'taken');
  try {
    const updated = await updateLink(db, ctx.program.id, row.id, {
      key: body.key,
      updated_at: nowTimestamp(ctx.clock),
    });
    return toReferralLink(updated ?? row, await urls(db, ctx), ctx);
  } catch (error) {
    throw takenFieldError(error);
  }
}

/** A partner keeps its default link: deleting it is refused. */
export async function deletePartnerLink(ctx: ProgramContext, key: string): Promise<void> {
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getLinkOrThrow(trx, ctx, key);
    if (row.is_default)
      throw fieldError('id', 'refused', 'The default referral link of a partner cannot be deleted.');
    await repository.deleteLinkCounters(trx, ctx.program.id, row.id);
    await deleteLink(trx, ctx.program.id, row.id);
  });
}

export async function listPartnerLinks(ctx: ProgramContext, partnerSegment: string, page: PageRequest) {
  const db = ctx.database.db;
  const partner = await getPartnerByPathOrThrow(db, ctx.program.id, partnerSegment);
  const rows = await listLinksOf(db, ctx.program.id, { partnerId: partner.id }, exactPageWindow(page));
  const context = await urls(db, ctx);
  return rows.map((row) => toReferralLink(row, context, ctx));
}

export async function searchPartnerLinks(ctx: ProgramContext, query: SearchPartnerLinksQuery) {
  const db = ctx.database.db;
  let partnerId: number | undefined;
  if (query.partner && Object.keys(query.partner).length > 0) {
    const partner = await findPartnerByRef(db, ctx.program.id, query.partner);
    if (!partner) return [];
    partnerId = partner.id;
  }
  const key = query.key ?? query.id;
  const rows = await searchLinks(
    db,
    ctx.program.id,
    'partner',
    { ...(key !== undefined ? { key } : {}), ...(partnerId !== undefined ? { ownerId: partnerId } : {}) },
    pageWindow(query),
    query.sort,
  );
  const context = await urls(db, ctx);
  return rows.map((row) => toReferralLink(row, context, ctx));
}

/** The default domain (the program website, id null) and the additional ones. */
export async function listLinkDomains(ctx: ProgramContext, page: PageRequest) {
  const db = ctx.database.db;
  const context = await loadLinkUrlContext(db, ctx.program.id, 'affiliate', { withDomains: false });
  const all: { id: string | null; domain: string; url: string; is_additional: boolean }[] = [];
  if (context.website) {
    let host = context.website;
    try {
      host = new URL(context.website).host;
    } catch {}
    all.push({ id: null, domain: host, url: context.website, is_additional: false });
  }
  for (const row of await repository.listDomains(db, ctx.program.id)) {
    all.push({ id: String(row.id), domain: row.domain, url: domainUrl(row.domain), is_additional: true });
  }
  const start = (page.page - 1) * page.limit;
  return all.slice(start, start + page.limit);
}
