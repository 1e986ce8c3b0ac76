import type { Kysely, Updateable } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { fieldError } from '../../core/errors.ts';
import { exactPageWindow, pageWindow } from '../../core/pages.ts';
import { programMetrics } from '../../core/program-stats.ts';
import { storedTags } from '../../core/tags.ts';
import { nowTimestamp } from '../../core/time.ts';
import { splitUpdateBody } from '../../core/update-body.ts';
import type { CustomersTable } from '../../db/domain-tables.ts';
import { takenFieldError } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { addToEntityCounters, deleteEntityCounters } from '../counters/counters.repository.ts';
import {
  findPartnerById,
  findPartnerByRef,
  findPartnersByIds,
  type PartnerRef,
} from '../partners/partners.service.ts';
import { recordProgramActivity } from '../program/program.service.ts';
import {
  insertAffiliateCustomerDecided,
  toAffiliateCustomer,
  toAffiliateCustomerEntry,
} from './customers.affiliate.records.ts';
import type {
  AffiliateCustomer,
  AffiliateCustomerEntry,
  CreateAffiliateCustomerBody,
  UpdateAffiliateCustomerBody,
} from './customers.affiliate.schemas.ts';
import type { CustomerBehaviour } from './customers.behaviour.ts';
import * as repository from './customers.repository.ts';
import type {
  CustomerTransactionsQuery,
  ListCustomersQuery,
  SearchCustomersQuery,
} from './customers.schemas.ts';
import {
  type CustomerRow,
  customerNotFound,
  findCustomerByRef,
  getCustomerByPathOrThrow,
  type RenameSales,
  type TakeSales,
} from './customers.shared.ts';

/** Customers of affiliate programs: they belong to a partner and feed its figures. */

const PATH_ORDER = ['key'] as const;
async function partnerIdOf(db: Kysely<DB>, ctx: ProgramContext, row: CustomerRow) {
  if (row.partner_id === null) return null;
  return (await findPartnerById(db, ctx.program.id, row.partner_id))?.public_id ?? null;
}

async function serialize(db: Kysely<DB>, ctx: ProgramContext, row: CustomerRow) {
  return toAffiliateCustomer(row, await partnerIdOf(db, ctx, row));
}

async function entries(db: Kysely<DB>, ctx: ProgramContext, rows: readonly CustomerRow[]) {
  const ids = [...new Set(rows.map((row) => row.partner_id).filter((id) => id !== null))];
  const partners = new Map(
    (await findPartnersByIds(db, ctx.program.id, ids)).map((p) => [p.id, p.public_id]),
  );
  return rows.map((row) =>
    toAffiliateCustomerEntry(row, row.partner_id === null ? null : (partners.get(row.partner_id) ?? null)),
  );
}

async function create(ctx: ProgramContext, body: CreateAffiliateCustomerBody) {
  try {
    return await ctx.database.db.transaction().execute(async (trx) => {
      const { row, fraud } = await insertAffiliateCustomerDecided(trx, ctx, body);
      const customer = await serialize(trx, ctx, row);
      return fraud === undefined ? customer : { ...customer, fraud };
    });
  } catch (error) {
    throw takenFieldError(error);
  }
}

async function get(ctx: ProgramContext, id: string) {
  const db = ctx.database.db;
  return serialize(db, ctx, await getCustomerByPathOrThrow(db, ctx.program.id, id, PATH_ORDER));
}

/** `partner_key`, `partner_email` or `partner[id|key|email]`: undefined when it names no partner. */
async function partnerFilter(db: Kysely<DB>, ctx: ProgramContext, query: ListCustomersQuery) {
  const ref: PartnerRef = { ...query.partner };
  if (query.partner_key !== undefined) ref.key = query.partner_key;
  if (query.partner_email !== undefined) ref.email = query.partner_email;
  if (Object.keys(ref).length === 0) return {};
  const partner = await findPartnerByRef(db, ctx.program.id, ref);
  return partner ? { partnerId: partner.id } : undefined;
}

async function list(ctx: ProgramContext, query: ListCustomersQuery) {
  const db = ctx.database.db;
  const byPartner = await partnerFilter(db, ctx, query);
  if (!byPartner) return [];
  // The older "get one customer" form sends `key` or `email` to the list path.
  const filter: repository.CustomerListFilter = {
    ...byPartner,
    ...(query.key !== undefined ? { key: query.key } : {}),
    ...(query.email !== undefined ? { email: query.email } : {}),
  };
  const rows = await repository.listCustomers(db, ctx.program.id, filter, pageWindow(query), query.sort);
  return entries(db, ctx, rows);
}

async function search(ctx: ProgramContext, query: SearchCustomersQuery) {
  const db = ctx.database.db;
  const filter: repository.CustomerListFilter = {};
  if (query.id !== undefined) filter.publicId = query.id;
  if (query.key !== undefined) filter.key = query.key;
  if (query.email !== undefined) filter.email = query.email;
  const rows = await repository.listCustomers(db, ctx.program.id, filter, pageWindow(query), query.sort);
  return entries(db, ctx, rows);
}

async function getForRequestOrThrow(
  db: Kysely<DB>,
  ctx: ProgramContext,
  segment: string | undefined,
  ref: repository.CustomerRef,
) {
  if (segment !== undefined) return getCustomerByPathOrThrow(db, ctx.program.id, segment, PATH_ORDER);
  if (ref.key === undefined && ref.email === undefined && ref.id === undefined)
    throw fieldError('key', 'required');
  const row = await findCustomerByRef(db, ctx.program.id, ref);
  if (!row) throw customerNotFound();
  return row;
}

async function update(
  ctx: ProgramContext,
  segment: string | undefined,
  body: UpdateAffiliateCustomerBody,
  renameSales: RenameSales,
) {
  const { ref, changes } = splitUpdateBody(segment, body, ['key', 'email']);
  const now = nowTimestamp(ctx.clock);
  try {
    return await ctx.database.db.transaction().execute(async (trx) => {
      const row = await getForRequestOrThrow(trx, ctx, segment, ref);
      const values: Updateable<CustomersTable> = { updated_at: now };
      for (const field of ['name', 'surname', 'email', 'key'] as const)
        if (changes[field] !== undefined) values[field] = changes[field];
      if (changes.tags !== undefined) values.tags = storedTags(changes.tags);
      const written = await repository.updateCustomerUnlessTaken(trx, ctx.program.id, row.id, values);
      if ('taken' in written) throw fieldError(`${body.update ? 'update.' : ''}${written.taken}`, 'taken');
      const updated = written.updated;
      if (updated.key !== row.key) await renameSales(trx, ctx, row.id, updated.key);
      const customer = await serialize(trx, ctx, updated);
      await recordEvent(trx, ctx.program.id, 'customer.updated', customer, now);
      return customer;
    });
  } catch (error) {
    throw takenFieldError(error, body.update ? 'update.' : '');
  }
}

/** Removes the customer with its transactions and rewards, taking back every figure they fed. */
async function remove(
  ctx: ProgramContext,
  ref: repository.CustomerRef & { path?: string },
  takeSales: TakeSales,
) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  await ctx.database.db.transaction().execute(async (trx) => {
    const { path, ...bodyRef } = ref;
    const row = await getForRequestOrThrow(trx, ctx, path, bodyRef);
    const customer = await serialize(trx, ctx, row);
    await takeSales(trx, ctx, row.id);
    const signup = { [partnerMetrics.signups]: -1 };
    if (row.partner_id !== null)
      await addToEntityCounters(trx, programId, { kind: 'partner', id: row.partner_id }, signup);
    if (row.referral_link_id !== null)
      await addToEntityCounters(trx, programId, { kind: 'link', id: row.referral_link_id }, signup);
    await recordProgramActivity(trx, programId, row.created_at, {
      [programMetrics.customers]: -1,
      [programMetrics.referredCustomers]: row.partner_id !== null ? -1 : 0,
      [programMetrics.rejectedSelfReferrals]: row.self_referral ? -1 : 0,
    });
    await deleteEntityCounters(trx, programId, { kind: 'customer', id: row.id });
    await repository.deleteCustomer(trx, programId, row.id);
    await recordEvent(trx, programId, 'customer.deleted', customer, now);
  });
}

/** A customer's sales, newest first, `limit` per page (100 unless asked). */
async function transactionsPage(ctx: ProgramContext, id: string, query: CustomerTransactionsQuery) {
  const row = await getCustomerByPathOrThrow(ctx.database.db, ctx.program.id, id, PATH_ORDER);
  const limit = query.limit ?? 100;
  const page = query.page ?? 1;
  return { customerId: row.id, window: exactPageWindow({ page, limit }) };
}

export const affiliateCustomers: CustomerBehaviour<
  CreateAffiliateCustomerBody,
  UpdateAffiliateCustomerBody,
  AffiliateCustomer,
  AffiliateCustomerEntry
> = { create, get, list, search, update, remove, transactionsPage };
