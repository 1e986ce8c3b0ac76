import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import type { CommissionRule } from '../../core/commissions.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { assertNever } from '../../core/program-types.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { keepCommissionsOfDeletedSale } from '../commissions/commissions.service.ts';
import {
  type CustomerTransactionsQuery,
  customerSalesPage,
  lockCustomer,
  type RenameSales,
  type TakeSales,
} from '../customers/customers.service.ts';
import type { AffiliateTransactionCustomer } from './transactions.affiliate.schemas.ts';
import {
  affiliateSales,
  affiliateSalesEarning,
  readAffiliateUnlocked,
  storedAffiliateSales,
} from './transactions.affiliate.ts';
import { createWith, recordSale } from './transactions.record.ts';
import { readReferralUnlocked, referralSales, storedReferralSales } from './transactions.referral.ts';
import * as repository from './transactions.repository.ts';
import { saleWriterIn } from './transactions.sale-writer.ts';
import type { AffiliateTransactionBody, ReferralTransactionBody } from './transactions.schemas.ts';
import type { SaleCompanion, SaleEntry, TransactionRow } from './transactions.shared.ts';
import { getRowOrThrow, onlyOne, storedSalesOf } from './transactions.stored.ts';

export type { SaleCompanion };

/**
 * `/v1/transactions…` for every program type that has transactions. The flow is shared (replay
 * rule, all-or-nothing multiple form, one decision applied in one transaction, events); what a
 * sale decides is the type's (`core/sales.ts`, through `transactions.<type>.ts`).
 */

/** A create body, typed by the program type whose variant validated it. */
export type CreateTransactionsInput =
  | { type: 'affiliate'; body: AffiliateTransactionBody }
  | { type: 'referral'; body: ReferralTransactionBody };

/**
 * `POST /v1/transactions`: one sale, or several all-or-nothing; a same-key same-body replay answers
 * the stored sale. With `trx`, inside the caller's write transaction (a processor event recorded
 * with its sale in one commit), else in one of its own. A `companion` (one sale only) is written
 * with the sale by whichever strategy writes it, and told when it was.
 */
export function createTransactions(
  ctx: ProgramContext,
  input: CreateTransactionsInput,
  trx?: Kysely<DB>,
  companion?: SaleCompanion,
) {
  switch (input.type) {
    case 'affiliate':
      return createWith(
        ctx,
        affiliateSales,
        storedAffiliateSales,
        input.body,
        readAffiliateUnlocked,
        trx,
        companion,
      );
    case 'referral':
      return createWith(
        ctx,
        referralSales,
        storedReferralSales,
        input.body,
        readReferralUnlocked,
        trx,
        companion,
      );
    default:
      return assertNever(input);
  }
}

/** One affiliate sale as another module hands it over (a lead's conversion). */
export type AffiliateSaleEntry = SaleEntry<Partial<Static<typeof AffiliateTransactionCustomer>>>;

/**
 * Records one affiliate sale inside the caller's write transaction, exactly as `POST
 * /v1/transactions` would (buyer created when asked, rewards, figures, `transaction.created`),
 * earning `commission` instead of the program's rule when given.
 */
export function recordAffiliateSale(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  entry: AffiliateSaleEntry,
  commission?: CommissionRule,
) {
  const handler = commission ? affiliateSalesEarning(commission) : affiliateSales;
  return recordSale(trx, ctx, handler, storedAffiliateSales, entry, saleWriterIn(trx, ctx));
}

export async function getTransaction(ctx: ProgramContext, key: string) {
  const db = ctx.database.db;
  return onlyOne(await storedSalesOf(ctx).serialize(db, ctx, [await getRowOrThrow(db, ctx, key)]));
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
  const serialized = onlyOne(await stored.serialize(trx, ctx, [row]));
  if (row.archived_at === null) await stored.applyEffects(trx, ctx, row, -1);
  if (ctx.program.type === 'affiliate') await keepCommissionsOfDeletedSale(trx, ctx, row.id);
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
 * On PostgreSQL the buyer is locked before its sales are listed, as every sale locks it: a sale
 * racing the delete either commits first and is taken back here, or finds its buyer gone.
 */
export const deleteSalesOfBuyer: TakeSales = async (trx, ctx, customerId) => {
  await lockCustomer(trx, ctx.program.id, customerId);
  for (const row of await repository.listTransactionsOfBuyer(trx, ctx.program.id, customerId))
    await deleteTransactionRow(trx, ctx, row);
};

/**
 * Writes a customer's new key onto every sale it made, in the caller's transaction: what a change
 * of key does (the customers module receives it as `RenameSales`), since each sale keeps its
 * buyer's key for the export (migration 0043). The buyer is locked first, as every sale locks it:
 * on PostgreSQL a sale decided with the old key meanwhile then decides again.
 */
export const renameBuyerOfSales: RenameSales = async (trx, ctx, customerId, key) => {
  await lockCustomer(trx, ctx.program.id, customerId);
  await repository.setBuyerKeyOfSales(trx, ctx.program.id, customerId, key);
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

export { refundTransaction } from './transactions.refund.ts';
