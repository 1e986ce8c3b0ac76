import type { Kysely, Updateable } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { fieldError } from '../../core/errors.ts';
import { exceptRule } from '../../core/fraud.ts';
import { exactPageWindow, pageWindow } from '../../core/pages.ts';
import { customerMetrics } from '../../core/sales.ts';
import { referralDeleteFigures } from '../../core/signups.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { UpdateChanges } from '../../core/update-body.ts';
import type { CustomersTable } from '../../db/domain-tables.ts';
import { takenFieldError } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import {
  addToEntityCounters,
  CounterFigures,
  deleteEntityCounters,
  readEntityCounters,
} from '../counters/counters.repository.ts';
import { decideSignupFraud, fraudOutcomeOf, openFlags } from '../fraud/fraud.service.ts';
import { recordProgramActivity } from '../program/program.service.ts';
import { renameDefaultLink } from '../referral-links/referral-links.service.ts';
import { linkUrlContextOf } from '../referral-links/referral-links.shared.ts';
import type { CustomerBehaviour } from './customers.behaviour.ts';
import {
  getReferralCustomerOrThrow,
  insertReferralCustomer,
  resolveReferrer,
  toReferralCustomer,
} from './customers.referral.customer.ts';
import { recordOf, toReferralCustomerEntry } from './customers.referral.records.ts';
import * as referralRepository from './customers.referral.repository.ts';
import type {
  CreateReferralCustomerBody,
  ReferralCustomer,
  ReferralCustomerEntry,
  UpdateReferralCustomerBody,
} from './customers.referral.schemas.ts';
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
  type RenameSales,
  type TakeSales,
} from './customers.shared.ts';
import { signupWriterOf } from './customers.signup-writer.ts';

/**
 * Customers of refer-a-friend programs: a customer may have been referred by another customer
 * (`referring_customer_id`), has a default referral link whose key is its own `key`, and earns
 * rewards when the customers it referred buy. Archive is a soft delete (status `archived`).
 */

export { toReferralCustomerEntry };

async function create(ctx: ProgramContext, body: CreateReferralCustomerBody) {
  if (body.partner !== undefined) throw fieldError('partner', 'prohibited');
  const ref = body.referring_customer;
  // The referrer is named by `id` when given (it wins over `key`), else by `key`.
  const selfReferral =
    ref !== undefined &&
    (ref.id !== undefined ? ref.id === body.id : ref.key !== undefined && ref.key === body.key);
  if (selfReferral) {
    throw fieldError('referring_customer', 'refused', 'A customer cannot refer itself.');
  }
  try {
    return await signupWriterOf(ctx).write(body, (trx) => createInTransaction(trx, ctx, body));
  } catch (error) {
    throw takenFieldError(error);
  }
}

/**
 * The transactional signup: the referrer resolved and locked, the fraud rules (core/fraud.ts; the
 * self-referral guard keeps its own treatment), the customer, its flags, figures and event.
 */
async function createInTransaction(trx: Kysely<DB>, ctx: ProgramContext, body: CreateReferralCustomerBody) {
  const named = await resolveReferrer(trx, ctx, body.referring_customer, 'referring_customer');
  const owner = named && { kind: 'customer' as const, id: named.id, ref: named.key, email: named.email };
  const decision = owner
    ? exceptRule(
        await decideSignupFraud(trx, ctx, {
          email: body.email,
          owner,
          context: body.context,
          at: nowTimestamp(ctx.clock),
        }),
        'self_referral',
      )
    : undefined;
  // A block credits nobody: the customer is created without its referrer.
  const referrer = decision?.blocked ? undefined : named;
  const inserted = await insertReferralCustomer(trx, ctx, {
    id: body.id,
    key: body.key,
    email: body.email,
    name: body.name,
    surname: body.surname,
    metadata: body.metadata,
    referrer,
  });
  const subject = { kind: 'customer' as const, id: inserted.id, ref: inserted.key };
  const flags = decision && owner && referrer ? await openFlags(trx, ctx, decision, subject, owner) : [];
  const first = flags[0];
  const row =
    first === undefined
      ? inserted
      : await repository.updateCustomer(trx, ctx.program.id, inserted.id, { fraud_flag: first.publicId });
  const data = await toReferralCustomer(trx, ctx, row);
  await recordEvent(trx, ctx.program.id, 'customer.created', data, row.created_at);
  const fraud = decision && fraudOutcomeOf(decision, flags);
  return fraud === undefined ? data : { ...data, fraud };
}

async function get(ctx: ProgramContext, id: string) {
  const db = ctx.database.db;
  // The customer with everything its record shows (one statement on PostgreSQL).
  const found = await referralRepository.findCustomerRecordByPath(db, ctx.program.id, id);
  if (!found) throw customerNotFound();
  const { row, referrer, links: linkRows, counters, program } = found;
  const links = linkUrlContextOf('referral', program);
  return {
    ...recordOf(row, linkRows, counters.get(Number(row.id)) ?? new CounterFigures(), links),
    referring_customer: referrer
      ? recordOf(referrer, linkRows, counters.get(Number(referrer.id)) ?? new CounterFigures(), links)
      : null,
  };
}

const visible = ['active'] as const;

/** `id`, `key`, `email` of a query as list filters (search, and the older identify-by-query list). */
function identifyFilter(query: SearchCustomersQuery | ListCustomersQuery): repository.CustomerListFilter {
  return {
    ...(query.id !== undefined ? { publicId: query.id } : {}),
    ...(query.key !== undefined ? { key: query.key } : {}),
    ...(query.email !== undefined ? { email: query.email } : {}),
  };
}

/** One page of visible customers matching `filter`, as list entries. */
async function listEntries(
  ctx: ProgramContext,
  query: SearchCustomersQuery | ListCustomersQuery,
  filter: repository.CustomerListFilter,
) {
  const rows = await repository.listCustomers(
    ctx.database.db,
    ctx.program.id,
    { statuses: visible, ...filter },
    pageWindow(query),
    query.sort,
  );
  return rows.map(toReferralCustomerEntry);
}

async function list(ctx: ProgramContext, query: ListCustomersQuery) {
  const status = query.refer_status;
  return listEntries(ctx, query, {
    ...(status === undefined ? {} : { referred: status === 'referred' }),
    ...identifyFilter(query),
  });
}

async function search(ctx: ProgramContext, query: SearchCustomersQuery) {
  return listEntries(ctx, query, identifyFilter(query));
}

/** The changes of an update body, wrapped or flat, as column values. */
function changesOf(body: UpdateReferralCustomerBody, identifiedByBody: boolean): Updateable<CustomersTable> {
  const { update: wrapped, ...given } = body;
  // Without a path id the body's `id` (else its `key`) names the customer: in the flat form the
  // other fields are the changes.
  const { id: _id, key, ...rest } = given;
  const flat: UpdateChanges<UpdateReferralCustomerBody> = given.id !== undefined ? { ...rest, key } : rest;
  const source = wrapped ?? (identifiedByBody ? flat : given);
  const values: Updateable<CustomersTable> = {};
  if (source.email !== undefined) values.email = source.email;
  if (source.name !== undefined) values.name = source.name;
  if (source.surname !== undefined) values.surname = source.surname;
  if (source.key !== undefined) values.key = source.key;
  if (source.id !== undefined) values.public_id = source.id;
  const metadata = source.metadata;
  if (metadata && 'date_of_birth' in metadata)
    values.metadata = JSON.stringify({ date_of_birth: metadata.date_of_birth ?? null });
  return values;
}

async function update(
  ctx: ProgramContext,
  id: string | undefined,
  body: UpdateReferralCustomerBody,
  renameSales: RenameSales,
) {
  const fieldPrefix = body.update ? 'update.' : '';
  try {
    return await ctx.database.db.transaction().execute(async (trx) => {
      let row: CustomerRow;
      if (id !== undefined) row = await getReferralCustomerOrThrow(trx, ctx, id);
      else {
        const ref = { id: body.id, key: body.key };
        if (ref.id === undefined && ref.key === undefined) throw fieldError('id', 'required');
        const found = await findCustomerByRef(trx, ctx.program.id, ref);
        if (!found) throw customerNotFound();
        row = found;
      }
      const values = changesOf(body, id === undefined);
      if (Object.keys(values).length === 0) return toReferralCustomer(trx, ctx, row);
      const written = await repository.updateCustomerUnlessTaken(trx, ctx.program.id, row.id, {
        ...values,
        updated_at: nowTimestamp(ctx.clock),
      });
      if ('taken' in written) throw fieldError(`${fieldPrefix}${written.taken}`, 'taken');
      const updated = written.updated;
      if (updated.key !== row.key) {
        await renameDefaultLink(trx, ctx.program.id, { customerId: row.id }, updated.key);
        await renameSales(trx, ctx, row.id, updated.key);
      }
      const data = await toReferralCustomer(trx, ctx, updated);
      await recordEvent(trx, ctx.program.id, 'customer.updated', data, updated.updated_at);
      return data;
    });
  } catch (error) {
    throw takenFieldError(error, fieldPrefix);
  }
}

/**
 * Permanent delete. The customer's own purchases go first through the transactions module (so
 * its referrer's figures and balance are taken back); its rewards, links and credits go with it;
 * customers it referred become non-referred.
 */
async function remove(
  ctx: ProgramContext,
  ref: repository.CustomerRef & { path?: string },
  takeSales: TakeSales,
) {
  await ctx.database.db.transaction().execute(async (trx) => {
    const row =
      ref.path !== undefined
        ? await getReferralCustomerOrThrow(trx, ctx, ref.path)
        : await findCustomerByRef(trx, ctx.program.id, ref);
    if (!row) throw customerNotFound();
    const referrerId = row.referring_customer_id === null ? undefined : Number(row.referring_customer_id);
    // PostgreSQL: the referrer's row first, locked and its version moved on as a signup takes it,
    // so this delete's last referral and a concurrent signup's first are decided one at a time.
    if (referrerId !== undefined) await repository.lockCustomer(trx, ctx.program.id, referrerId);
    const data = await toReferralCustomer(trx, ctx, row);
    await takeSales(trx, ctx, row.id);

    const own = await readEntityCounters(trx, ctx.program.id, { kind: 'customer', id: row.id });
    const referrer =
      referrerId === undefined
        ? undefined
        : await readEntityCounters(trx, ctx.program.id, { kind: 'customer', id: referrerId });
    const activity = referralDeleteFigures({
      referred: referrerId !== undefined,
      selfReferral: Boolean(row.self_referral),
      ownReferrals: own.count(customerMetrics.referralsCount),
      referrerReferralsBefore: referrer?.count(customerMetrics.referralsCount) ?? 0,
    });
    // Program figures before the referrer's, in the order every writer takes them.
    await recordProgramActivity(trx, ctx.program.id, row.created_at, activity);
    if (row.referring_customer_id !== null) {
      await addToEntityCounters(
        trx,
        ctx.program.id,
        { kind: 'customer', id: Number(row.referring_customer_id) },
        { [customerMetrics.referralsCount]: -1, [customerMetrics.signups]: -1 },
      );
    }

    await deleteEntityCounters(trx, ctx.program.id, { kind: 'customer', id: row.id });
    await repository.deleteCustomer(trx, ctx.program.id, row.id);
    await recordEvent(trx, ctx.program.id, 'customer.deleted', data, nowTimestamp(ctx.clock));
  });
}

/** Refer-a-friend `limit` is 10–100 (spec, Limits); the shared route validates the widest range. */
async function transactionsPage(ctx: ProgramContext, id: string, query: CustomerTransactionsQuery) {
  const limit = query.limit ?? 10;
  if (limit < 10 || limit > 100) throw fieldError('limit', 'between', 10, 100);
  const page = query.page ?? 1;
  const row = await getReferralCustomerOrThrow(ctx.database.db, ctx, id);
  return { customerId: row.id, window: exactPageWindow({ page, limit }) };
}

export const referralCustomers: CustomerBehaviour<
  CreateReferralCustomerBody,
  UpdateReferralCustomerBody,
  ReferralCustomer,
  ReferralCustomerEntry
> = {
  create,
  get,
  list,
  search,
  update,
  remove,
  transactionsPage,
};

/** Archive (soft delete) and revoke-archive: the status moves between `active` and `archived`. */
export async function setReferralCustomerStatus(
  ctx: ProgramContext,
  id: string,
  status: 'active' | 'archived',
) {
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getReferralCustomerOrThrow(trx, ctx, id);
    if (row.status === status) return;
    const updated = await repository.updateCustomer(trx, ctx.program.id, row.id, {
      status,
      updated_at: nowTimestamp(ctx.clock),
    });
    await recordEvent(
      trx,
      ctx.program.id,
      'customer.updated',
      await toReferralCustomer(trx, ctx, updated),
      updated.updated_at,
    );
  });
}

export {
  getReferralCustomerOrThrow,
  insertReferralCustomer,
  linkContext,
  loadReferralCustomer,
  type NewReferralCustomer,
  resolveReferrer,
  toReferralCustomer,
} from './customers.referral.customer.ts';
