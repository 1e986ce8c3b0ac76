import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError, type FieldErrors, validationError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import { messages } from '../../core/messages.ts';
import { amountOrThrow } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { assertNever } from '../../core/program-types.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import {
  type CustomerTransactionsQuery,
  customerSalesPage,
  type TakeSales,
} from '../customers/customers.service.ts';
import { affiliateSales, storedAffiliateSales } from './transactions.affiliate.ts';
import { applySaleFigures } from './transactions.figures.ts';
import { inWriteTransaction } from './transactions.group-commit.ts';
import { referralSales, storedReferralSales } from './transactions.referral.ts';
import * as repository from './transactions.repository.ts';
import type { AffiliateTransactionBody, ReferralTransactionBody } from './transactions.schemas.ts';
import {
  type SaleEntry,
  type SaleHandler,
  type StoredSales,
  saleInputOf,
  type TransactionProgramType,
  type TransactionRow,
  transactionDigest,
  transactionNotFound,
} from './transactions.shared.ts';

/**
 * `/v1/transactions…` for every program type that has transactions. The flow is shared (replay
 * rule, all-or-nothing multiple form, one decision applied in one transaction, events); what a
 * sale decides is the type's (`core/sales.ts`, through `transactions.<type>.ts`).
 */

const storedSales = {
  affiliate: storedAffiliateSales,
  referral: storedReferralSales,
} satisfies Record<TransactionProgramType, StoredSales>;

function storedSalesOf(ctx: ProgramContext): StoredSales {
  return storedSales[ctx.program.type as TransactionProgramType];
}

/** A create body, typed by the program type whose variant validated it. */
export type CreateTransactionsInput =
  | { type: 'affiliate'; body: AffiliateTransactionBody }
  | { type: 'referral'; body: ReferralTransactionBody };

/** `POST /v1/transactions`: one sale, or several all-or-nothing; a same-key same-body replay answers the stored sale. */
export function createTransactions(ctx: ProgramContext, input: CreateTransactionsInput) {
  switch (input.type) {
    case 'affiliate':
      return createWith(ctx, affiliateSales, storedAffiliateSales, input.body);
    case 'referral':
      return createWith(ctx, referralSales, storedReferralSales, input.body);
    default:
      return assertNever(input);
  }
}

interface CreateBody<Customer> {
  customer: Customer;
  options?: SaleEntry<Customer>['options'];
  transactions?: Omit<SaleEntry<Customer>, 'customer' | 'options'>[] | undefined;
}

/** The sale entries of a create body: itself (single form) or its `transactions` with the shared part. */
function entriesOf<Customer>(body: CreateBody<Customer> & Partial<SaleEntry<Customer>>) {
  const { transactions, ...single } = body;
  if (transactions) {
    return {
      entries: transactions.map((item) => ({ ...item, customer: body.customer, options: body.options })),
      multiple: true,
    };
  }
  // The route schema requires `amount` and `action` in the single form.
  return { entries: [single as SaleEntry<Customer>], multiple: false };
}

async function createWith<Customer extends { id?: string; key?: string; email?: string }, Prepared>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  stored: StoredSales,
  body: CreateBody<Customer> & Partial<SaleEntry<Customer>>,
) {
  const { entries, multiple } = entriesOf(body);
  const keys = entries.map((entry) => entry.key).filter((key) => key !== undefined);
  const duplicate = keys.findIndex((key, i) => keys.indexOf(key) !== i);
  if (duplicate >= 0) {
    const field = `transactions.${duplicate}.key`;
    throw validationError({ [field]: [messages.distinct(field)] });
  }
  const data = await inWriteTransaction(ctx.database, async (trx) => {
    const out: unknown[] = [];
    for (const [index, entry] of entries.entries()) {
      try {
        out.push(await recordSale(trx, ctx, handler, stored, entry));
      } catch (error) {
        throw multiple ? prefixFieldErrors(error, index) : error;
      }
    }
    return out;
  });
  return multiple ? data : data[0];
}

/**
 * One sale, insert-or-replay on its key (core/insert-or-replay.ts): replayed when its key is
 * stored with the same request, refused when with another, otherwise decided from what `prepare`
 * read and written at once (rows, figures, event).
 */
async function recordSale<Customer extends { id?: string; key?: string; email?: string }, Prepared>(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  stored: StoredSales,
  entry: SaleEntry<Customer>,
) {
  const programId = ctx.program.id;
  const amountMicros = amountOrThrow(entry.amount, 'amount');
  const key = entry.key ?? newKey();
  const digest = transactionDigest(entry, amountMicros, entry.customer);
  const outcome = await insertOrReplay({
    find: () => repository.findTransactionByKey(trx, programId, key),
    sameRequest: (row) => row.request_digest === digest,
    taken: () => validationError({ key: [messages.taken('key')] }),
    insert: () => writeSale(trx, ctx, handler, entry, { key, digest, amountMicros }),
  });
  if ('created' in outcome) return outcome.created.data;
  const [data] = await stored.serializeCreated(trx, ctx, [outcome.replayed]);
  return data;
}

/** Decides a new sale and writes it: the row first (nothing when its key is taken), then the rest. */
async function writeSale<Customer, Prepared>(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  entry: SaleEntry<Customer>,
  { key, digest, amountMicros }: { key: string; digest: string; amountMicros: bigint },
) {
  const programId = ctx.program.id;
  const prepared = await handler.prepare(trx, ctx, entry);
  // Taken inside the write transaction, so creation order and `created_at` agree.
  const now = nowTimestamp(ctx.clock);
  const sale = saleInputOf(entry, amountMicros, now);
  const decision = handler.decide(prepared, sale);
  const row = await repository.insertSaleRow(trx, {
    program_id: programId,
    key,
    customer_id: decision.customerId,
    partner_id: decision.partnerId,
    referring_customer_id: decision.referringCustomerId,
    action: entry.action,
    amount: decision.amountMicros,
    amount_units: decision.currency,
    is_currency: true,
    credit: false,
    rewarded: sale.rewarded,
    rewardable: sale.rewardable,
    product_id: sale.productId,
    product_type: sale.productType,
    request_digest: digest,
    archived_at: null,
    created_at: now,
    deleted_at: null,
  });
  if (!row) return undefined;
  const rewards = await repository.insertRewards(
    trx,
    decision.rewards.map((reward) => ({
      program_id: programId,
      transaction_id: row.id,
      partner_id: reward.partnerId,
      customer_id: reward.customerId,
      role: reward.role,
      status: reward.status,
      amount: reward.amountMicros,
      amount_units: reward.units,
      is_currency: reward.isCurrency,
      credit: false,
      commission_type: reward.commissionType,
      commission_value: reward.commissionValue,
      product_id: row.product_id,
      product_type: row.product_type,
      available_at: reward.availableAt,
      created_at: now,
      deleted_at: null,
    })),
  );
  await applySaleFigures(trx, programId, now, decision.figures);
  const data = handler.created(prepared, row, rewards);
  await recordEvent(trx, programId, 'transaction.created', data, now);
  return { data };
}

// Fields of the shared part of the multiple form keep their name; the others get `transactions.N.`.
const SHARED_FIELDS = /^(customer|options)(\.|$)/;

function prefixFieldErrors(error: unknown, index: number): unknown {
  if (!(error instanceof AppError) || error.code !== 'validation_failed') return error;
  const fields: FieldErrors = {};
  for (const [field, list] of Object.entries(error.fields)) {
    if (SHARED_FIELDS.test(field)) {
      fields[field] = list;
      continue;
    }
    const path = `transactions.${index}.${field}`;
    fields[path] = list.map((message) =>
      message.replace(`The ${field.replaceAll('_', ' ')} `, `The ${path.replaceAll('_', ' ')} `),
    );
  }
  return validationError(fields);
}

async function getRowOrThrow(db: Kysely<DB>, ctx: ProgramContext, key: string) {
  const row = await repository.findTransactionByKey(db, ctx.program.id, key);
  if (!row) throw transactionNotFound();
  return row;
}

export async function getTransaction(ctx: ProgramContext, key: string) {
  const db = ctx.database.db;
  const [data] = await storedSalesOf(ctx).serialize(db, ctx, [await getRowOrThrow(db, ctx, key)]);
  return data;
}

export async function listTransactions(ctx: ProgramContext, query: PageRequest & Record<string, unknown>) {
  const db = ctx.database.db;
  const stored = storedSalesOf(ctx);
  const filter = await stored.listFilter(db, ctx, query);
  if (!filter) return [];
  const rows = await repository.listTransactions(db, ctx.program.id, filter, pageWindow(query), query.sort);
  return stored.serialize(db, ctx, rows);
}

/** Archived transactions and their rewards leave every total; revoke-archive brings them back. */
export async function archiveTransaction(ctx: ProgramContext, key: string): Promise<void> {
  const stored = storedSalesOf(ctx);
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, ctx, key);
    if (row.archived_at !== null) return;
    await stored.applyEffects(trx, ctx, row, -1);
    await repository.updateTransaction(trx, ctx.program.id, row.id, { archived_at: nowTimestamp(ctx.clock) });
  });
}

export async function revokeArchiveTransaction(ctx: ProgramContext, key: string): Promise<void> {
  const stored = storedSalesOf(ctx);
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, ctx, key);
    if (row.archived_at === null) return;
    await repository.updateTransaction(trx, ctx.program.id, row.id, { archived_at: null });
    await stored.applyEffects(trx, ctx, { ...row, archived_at: null }, 1);
  });
}

/** Removes one transaction inside the caller's transaction: figures, rows, event. */
export async function deleteTransactionRow(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow) {
  const stored = storedSalesOf(ctx);
  const [serialized] = await stored.serialize(trx, ctx, [row]);
  if (row.archived_at === null) await stored.applyEffects(trx, ctx, row, -1);
  await repository.deleteTransaction(trx, ctx.program.id, row.id);
  await recordEvent(trx, ctx.program.id, 'transaction.deleted', serialized, nowTimestamp(ctx.clock));
}

export async function deleteTransaction(ctx: ProgramContext, key: string): Promise<void> {
  await ctx.database.db.transaction().execute(async (trx) => {
    await deleteTransactionRow(trx, ctx, await getRowOrThrow(trx, ctx, key));
  });
}

/**
 * Takes back and removes every sale a customer made, archived ones included, in the caller's
 * transaction: what a customer delete does first (the customers module receives it as `TakeSales`).
 */
export const deleteSalesOfBuyer: TakeSales = async (trx, ctx, customerId) => {
  for (const row of await repository.listTransactionsOfBuyer(trx, ctx.program.id, customerId))
    await deleteTransactionRow(trx, ctx, row);
};

/** `GET /v1/customers/{id}/transactions`. */
export async function listCustomerTransactions(
  ctx: ProgramContext,
  id: string,
  query: CustomerTransactionsQuery,
) {
  const { customerId, window } = await customerSalesPage(ctx, id, query);
  return storedSalesOf(ctx).listOfCustomer(ctx.database.db, ctx, customerId, window);
}
