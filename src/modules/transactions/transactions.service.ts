import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import type { CommissionRule } from '../../core/commissions.ts';
import { fieldError, underPath } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import { amountOrThrow, microsFrom, microsToText } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { assertNever } from '../../core/program-types.ts';
import { decideRefund, type RefundedSale, type SaleDecision, type SaleInput } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import {
  keepCommissionsOfDeletedSale,
  saleCommissionEvents,
  serializeCommissions,
} from '../commissions/commissions.service.ts';
import {
  type CustomerTransactionsQuery,
  customerSalesPage,
  lockCustomer,
  type TakeSales,
} from '../customers/customers.service.ts';
import {
  findCodeForSale,
  partnerAttributedBy,
  redeemForSale,
} from '../promotion-codes/promotion-codes.service.ts';
import type { AffiliateTransaction, AffiliateTransactionCustomer } from './transactions.affiliate.schemas.ts';
import {
  affiliateSales,
  affiliateSalesEarning,
  readAffiliateUnlocked,
  storedAffiliateSales,
} from './transactions.affiliate.ts';
import { applySaleFigures } from './transactions.figures.ts';
import type { CreatedReferralTransaction, ReferralTransaction } from './transactions.referral.schemas.ts';
import { readReferralUnlocked, referralSales, storedReferralSales } from './transactions.referral.ts';
import * as repository from './transactions.repository.ts';
import { type SaleWriter, saleWriterIn, saleWriterOf } from './transactions.sale-writer.ts';
import type {
  AffiliateTransactionBody,
  ReferralTransactionBody,
  RefundTransactionBody,
} from './transactions.schemas.ts';
import {
  type SaleEntry,
  type SaleHandler,
  type SaleRequest,
  type SaleSteps,
  type StoredSales,
  saleInputOf,
  type TransactionProgramType,
  type TransactionRow,
  transactionDigest,
  transactionNotFound,
  type UnlockedRead,
} from './transactions.shared.ts';

/**
 * `/v1/transactions…` for every program type that has transactions. The flow is shared (replay
 * rule, all-or-nothing multiple form, one decision applied in one transaction, events); what a
 * sale decides is the type's (`core/sales.ts`, through `transactions.<type>.ts`).
 */

const storedSales = {
  affiliate: storedAffiliateSales,
  referral: storedReferralSales,
};

/** The stored sales of whichever type the program has: each answers its own type's shapes. */
type AnyStoredSales =
  | StoredSales<AffiliateTransaction, AffiliateTransaction>
  | StoredSales<ReferralTransaction, CreatedReferralTransaction>;

function storedSalesOf(ctx: ProgramContext): AnyStoredSales {
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
      return createWith(ctx, affiliateSales, storedAffiliateSales, input.body, readAffiliateUnlocked);
    case 'referral':
      return createWith(ctx, referralSales, storedReferralSales, input.body, readReferralUnlocked);
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

async function createWith<Customer extends { id?: string; key?: string; email?: string }, Prepared, Created>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared, Created>,
  stored: StoredSales<unknown, Created>,
  body: CreateBody<Customer> & Partial<SaleEntry<Customer>>,
  unlocked?: UnlockedSaleRead<Customer, Prepared>,
) {
  const { entries, multiple } = entriesOf(body);
  const keys = entries.map((entry) => entry.key).filter((key) => key !== undefined);
  const duplicate = keys.findIndex((key, i) => keys.indexOf(key) !== i);
  if (duplicate >= 0) {
    throw fieldError(`transactions.${duplicate}.key`, 'distinct');
  }
  const [single] = entries;
  if (!multiple && single)
    return recordSale(ctx.database.db, ctx, handler, stored, single, saleWriterOf(ctx), unlocked);
  return ctx.database.inWriteTransaction(async (trx) => {
    const out: Created[] = [];
    for (const [index, entry] of entries.entries()) {
      try {
        out.push(await recordSale(trx, ctx, handler, stored, entry, saleWriterIn(trx, ctx)));
      } catch (error) {
        throw multiple ? underPath(error, `transactions.${index}.`, isSharedField) : error;
      }
    }
    return out;
  });
}

/** The one-statement read of a type's buyer, unlocked, for the writer's guarded strategy. */
type UnlockedSaleRead<Customer, Prepared> = (
  db: Kysely<DB>,
  ctx: ProgramContext,
  entry: SaleEntry<Customer>,
) => Promise<UnlockedRead<Prepared> | undefined>;

/**
 * One sale, insert-or-replay on its key (core/insert-or-replay.ts): replayed when its key is
 * stored with the same request, refused when with another, otherwise decided and written by
 * `writer` (transactions.sale-writer.ts), which chooses how the rows are written.
 */
async function recordSale<Customer extends { id?: string; key?: string; email?: string }, Prepared, Created>(
  db: Kysely<DB>,
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared, Created>,
  stored: StoredSales<unknown, Created>,
  entry: SaleEntry<Customer>,
  writer: SaleWriter,
  unlocked?: UnlockedSaleRead<Customer, Prepared>,
) {
  const programId = ctx.program.id;
  const amountMicros = amountOrThrow(entry.amount, 'amount');
  const key = entry.key ?? newKey();
  const digest = transactionDigest(entry, amountMicros, entry.customer);
  const steps = saleSteps(ctx, handler, entry, { key, digest, amountMicros }, unlocked);
  const outcome = await insertOrReplay({
    find: () => repository.findTransactionByKey(db, programId, key),
    sameRequest: (row) => row.request_digest === digest,
    taken: () => fieldError('key', 'taken'),
    insert: () => writer.write(steps),
    insertFirst: writer.findsTakenKey,
  });
  if ('created' in outcome) return outcome.created.data;
  return onlyOne(await stored.serializeCreated(db, ctx, [outcome.replayed]));
}

/** What a sale read, with the promotion code it redeems (none on the unlocked read). */
interface PreparedSale<Prepared> {
  prepared: Prepared;
  target: Awaited<ReturnType<typeof findCodeForSale>> | undefined;
}

/** How the service decides a sale, as steps for the writer: reads, the pure decision, the answer. */
function saleSteps<Customer, Prepared, Created>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared, Created>,
  entry: SaleEntry<Customer>,
  request: SaleRequest,
  unlocked: UnlockedSaleRead<Customer, Prepared> | undefined,
): SaleSteps<PreparedSale<Prepared>, Created> {
  const code = saleCodeOf(entry);
  return {
    key: request.key,
    prepare: async (trx) => {
      const target = code ? await findCodeForSale(trx, ctx, code.value, code.field) : undefined;
      const partner = target ? await partnerAttributedBy(trx, ctx, target) : undefined;
      return { prepared: await handler.prepare(trx, ctx, entry, { partner }), target };
    },
    // A sale with a code redeems it in the sale's transaction: never read unlocked.
    readUnlocked:
      unlocked && !code
        ? async (db) => {
            const read = await unlocked(db, ctx, entry);
            return read && { ...read, prepared: { prepared: read.prepared, target: undefined } };
          }
        : undefined,
    decide: ({ prepared }) => {
      const sale = saleInputOf(entry, request.amountMicros, nowTimestamp(ctx.clock));
      const decision = handler.decide(prepared, sale);
      return { decision, row: saleRowOf(ctx.program.id, entry, request, sale, decision) };
    },
    // Redeemed with the sale's key in the sale's transaction: a refusal (422 on the code's
    // field) rolls the sale back with it.
    afterInsert: async (trx, { prepared, target }, _row, decision) => {
      if (!target || !code) return;
      await redeemForSale(trx, ctx, target, {
        transactionKey: request.key,
        field: code.field,
        order: {
          amountMicros: decision.amountMicros,
          salesBefore: handler.salesBefore(prepared),
          partnerId: decision.partnerId,
          customerId: decision.customerId,
        },
      });
    },
    answer: ({ prepared }, row, rewards) => handler.created(prepared, row, rewards),
    events: (db, { prepared }, row, rewards) =>
      saleCommissionEvents(db, ctx, rewards, handler.names?.(prepared, row)),
  };
}

/** The stored sale's columns. */
function saleRowOf(
  programId: number,
  entry: { action: string },
  request: SaleRequest,
  sale: SaleInput,
  decision: SaleDecision,
): repository.NewTransaction {
  return {
    program_id: programId,
    key: request.key,
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
    request_digest: request.digest,
    archived_at: null,
    created_at: sale.at,
    deleted_at: null,
  };
}

/** The promotion code a sale carries, and the field that named it. */
function saleCodeOf(entry: { promotion_code?: string | undefined; discount_code?: string | undefined }) {
  if (entry.promotion_code !== undefined) return { value: entry.promotion_code, field: 'promotion_code' };
  if (entry.discount_code !== undefined) return { value: entry.discount_code, field: 'discount_code' };
  return undefined;
}

// Fields of the shared part of the multiple form keep their name; the others go under `transactions.N.`.
const isSharedField = (field: string) => /^(customer|options)(\.|$)/.test(field);

/** The one entry a list of one row serializes to. */
function onlyOne<Entries extends readonly unknown[]>(entries: Entries): Entries[number] {
  const [entry] = entries;
  if (entry === undefined) throw new Error('a stored sale serialized to no entry');
  return entry;
}

async function getRowOrThrow(db: Kysely<DB>, ctx: ProgramContext, key: string) {
  const row = await repository.findTransactionByKey(db, ctx.program.id, key);
  if (!row) throw transactionNotFound();
  return row;
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

/** `GET /v1/customers/{id}/transactions`. */
export async function listCustomerTransactions(
  ctx: ProgramContext,
  id: string,
  query: CustomerTransactionsQuery,
) {
  const { customerId, window } = await customerSalesPage(ctx, id, query);
  return storedSalesOf(ctx).listOfCustomer(ctx.database.db, ctx, customerId, window);
}

const refundRefusals = {
  refunded: () => fieldError('amount', 'refused', 'The transaction has already been refunded in full.'),
  'not-positive': () => fieldError('amount', 'gt', 0),
  'too-much': (left: bigint) => fieldError('amount', 'overRefundable', microsToText(left)),
} as const;

/**
 * `POST /v1/transactions/{key}/refund`: the whole sale when `amount` is omitted, else that part;
 * partial refunds add up, never beyond the sale. Decided by `decideRefund` (core/sales.ts) and
 * applied in one transaction: reduced or voided rewards, clawback lines, figures, events.
 */
export async function refundTransaction(ctx: ProgramContext, key: string, body: RefundTransactionBody) {
  const programId = ctx.program.id;
  const stored = storedSalesOf(ctx);
  const type = ctx.program.type as TransactionProgramType;
  const requested = body.amount === undefined ? undefined : amountOrThrow(body.amount, 'amount');
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, ctx, key);
    await repository.lockTransaction(trx, programId, row.id);
    const fresh = (await repository.findTransactionByKey(trx, programId, key)) ?? row;
    const amountMicros = microsFrom(fresh.amount);
    const refundedBefore = microsFrom(fresh.refunded_amount ?? 0);
    const rewards = await repository.listRewardsOf(trx, programId, [fresh.id]);
    const sale: RefundedSale = {
      type,
      customerId: fresh.customer_id,
      partnerId: fresh.partner_id,
      referringCustomerId: fresh.referring_customer_id,
      amountMicros,
      currency: fresh.amount_units,
      refundedBefore,
      archived: fresh.archived_at !== null,
      rewards: rewards
        .filter((reward) => reward.deleted_at === null)
        .map((reward) => ({
          id: Number(reward.id),
          role: reward.role,
          status: reward.status,
          partnerId: reward.partner_id === null ? null : Number(reward.partner_id),
          customerId: reward.customer_id === null ? null : Number(reward.customer_id),
          amountMicros: microsFrom(reward.amount),
          originalMicros: microsFrom(reward.original_amount ?? reward.amount),
          units: reward.amount_units,
          isCurrency: Boolean(reward.is_currency),
          inPayout: reward.payout_id !== null && reward.status === 'ok',
        })),
    };
    const decision = decideRefund(sale, requested ?? amountMicros - refundedBefore);
    if (typeof decision === 'string') throw refundRefusals[decision](amountMicros - refundedBefore);
    const now = nowTimestamp(ctx.clock);
    for (const update of decision.updates) {
      await repository.updateReward(trx, programId, update.id, {
        amount: update.amountMicros,
        original_amount: update.originalMicros,
        status: update.status,
        updated_at: now,
        ...(update.status === 'voided' ? { reason: 'Refunded' } : {}),
      });
    }
    const clawbacks = await repository.insertRewards(
      trx,
      decision.clawbacks.map(({ of, amountMicros: clawback }) => ({
        program_id: programId,
        transaction_id: fresh.id,
        partner_id: of.partnerId,
        customer_id: of.customerId,
        role: 'clawback',
        status: 'ok',
        amount: clawback,
        amount_units: of.units,
        is_currency: of.isCurrency,
        credit: false,
        commission_type: 'clawback',
        commission_value: String(of.id),
        product_id: fresh.product_id,
        product_type: fresh.product_type,
        available_at: null,
        created_at: now,
        deleted_at: null,
      })),
    );
    await repository.updateTransaction(trx, programId, fresh.id, { refunded_amount: decision.refundedAfter });
    await applySaleFigures(trx, programId, fresh.created_at, decision.figures);
    const after = { ...fresh, refunded_amount: decision.refundedAfter };
    const data = onlyOne(await stored.serialize(trx, ctx, [after]));
    await recordEvent(trx, programId, 'transaction.refunded', data, now);
    if (type === 'affiliate') {
      const voided = decision.updates.filter((u) => u.status === 'voided').map((u) => u.id);
      const changed = await repository.listRewardsOf(trx, programId, [fresh.id]);
      const voidedRows = changed.filter((r) => voided.includes(Number(r.id)));
      for (const commission of await serializeCommissions(trx, ctx, voidedRows))
        await recordEvent(trx, programId, 'commission.voided', commission, now);
      for (const commission of await serializeCommissions(trx, ctx, clawbacks))
        await recordEvent(trx, programId, 'commission.created', commission, now);
    }
    return data;
  });
}
