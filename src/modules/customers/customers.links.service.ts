import type { ProgramContext } from '../../context.ts';
import { fieldError } from '../../core/errors.ts';
import { exactPageWindow, pageWindow } from '../../core/pages.ts';
import { nowTimestamp } from '../../core/time.ts';
import { takenFieldError } from '../../db/errors.ts';
import {
  deleteLink,
  findLinkByKey,
  insertLink,
  type LinkSearchFilter,
  listLinksOf,
  searchLinks,
  updateLink,
} from '../referral-links/referral-links.service.ts';
import { linkNotFound, toReferralLink } from '../referral-links/referral-links.shared.ts';
import type {
  CreateCustomerReferralLinkBody,
  SearchCustomerReferralLinksQuery,
  UpdateCustomerReferralLinkBody,
} from './customers.links.schemas.ts';
import { getReferralCustomerOrThrow, linkContext } from './customers.referral.ts';
import * as customers from './customers.repository.ts';
import { findCustomerByRef, type RenameSales } from './customers.shared.ts';

/**
 * Referral links of refer-a-friend customers. Every customer has a default link whose key is the
 * customer's key (created with the customer); more links can be added, renamed and removed.
 */

async function getLinkOrThrow(ctx: ProgramContext, key: string, db = ctx.database.db) {
  const row = await findLinkByKey(db, ctx.program.id, key, 'customer');
  if (!row) throw linkNotFound();
  return row;
}

export async function createCustomerReferralLink(ctx: ProgramContext, body: CreateCustomerReferralLinkBody) {
  const { id, key, email } = body.customer;
  if (!id && !key && !email) throw fieldError('customer.id', 'required');
  const db = ctx.database.db;
  const customer = await findCustomerByRef(db, ctx.program.id, { id, key, email });
  if (!customer) throw fieldError('customer', 'invalid');
  const now = nowTimestamp(ctx.clock);
  const row = await insertLink(db, {
    program_id: ctx.program.id,
    key: body.key,
    customer_id: customer.id,
    is_default: false,
    created_at: now,
    updated_at: now,
  });
  if (!row) throw fieldError('key', 'taken');
  return toReferralLink(row, await linkContext(ctx), ctx);
}

export async function getCustomerReferralLink(ctx: ProgramContext, key: string) {
  return toReferralLink(await getLinkOrThrow(ctx, key), await linkContext(ctx), ctx);
}

/** `:search` by link `id`/`key` and by `customer[id|key|email]`; a customer that is unknown matches nothing. */
export async function searchCustomerReferralLinks(
  ctx: ProgramContext,
  query: SearchCustomerReferralLinksQuery,
) {
  const db = ctx.database.db;
  const filter: LinkSearchFilter = {};
  const key = query.key ?? query.id;
  if (query.id !== undefined && query.key !== undefined && query.id !== query.key) return [];
  if (key !== undefined) filter.key = key;
  const ref = query.customer ?? {};
  if (ref.id || ref.key || ref.email) {
    const customer = await findCustomerByRef(db, ctx.program.id, ref);
    if (!customer) return [];
    filter.ownerId = customer.id;
  }
  const rows = await searchLinks(db, ctx.program.id, 'customer', filter, pageWindow(query), query.sort);
  const links = await linkContext(ctx);
  return rows.map((row) => toReferralLink(row, links, ctx));
}

/**
 * Renames a link. Renaming the default link renames the customer's key with it, so that the
 * default link's key stays the customer's key; `renameSales` writes it onto the customer's sales.
 */
export async function updateCustomerReferralLink(
  ctx: ProgramContext,
  key: string,
  body: UpdateCustomerReferralLinkBody,
  renameSales: RenameSales,
) {
  try {
    const row = await ctx.database.db.transaction().execute(async (trx) => {
      const link = await getLinkOrThrow(ctx, key, trx);
      if (link.key === body.key) return link;
      if (await findLinkByKey(trx, ctx.program.id, body.key)) throw fieldError('key', 'taken');
      const now = nowTimestamp(ctx.clock);
      const updated = await updateLink(trx, ctx.program.id, link.id, { key: body.key, updated_at: now });
      if (link.is_default && link.customer_id !== null) {
        const customerId = Number(link.customer_id);
        await customers.updateCustomer(trx, ctx.program.id, customerId, { key: body.key, updated_at: now });
        await renameSales(trx, ctx, customerId, body.key);
      }
      return updated ?? link;
    });
    return toReferralLink(row, await linkContext(ctx), ctx);
  } catch (error) {
    throw takenFieldError(error);
  }
}

export async function deleteCustomerReferralLink(ctx: ProgramContext, key: string): Promise<void> {
  const link = await getLinkOrThrow(ctx, key);
  if (link.is_default)
    throw fieldError('id', 'refused', 'The default referral link of a customer cannot be deleted.');
  await deleteLink(ctx.database.db, ctx.program.id, link.id);
}

/** `GET /v1/customers/{id}/referral_links`: the customer's links, default first. */
export async function listCustomerReferralLinks(
  ctx: ProgramContext,
  id: string,
  page: { limit: number; page: number },
) {
  const db = ctx.database.db;
  const customer = await getReferralCustomerOrThrow(db, ctx, id);
  const rows = await listLinksOf(db, ctx.program.id, { customerId: customer.id }, exactPageWindow(page));
  const links = await linkContext(ctx);
  return rows.map((row) => toReferralLink(row, links, ctx));
}
