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
import { isRetryable, translateDriverError, uniqueViolationColumn } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { type DomainEvent, eventsStatement, recordEvent } from '../../outbox/outbox.ts';
import {
  keepCommissionsOfDeletedSale,
  saleCommissionEvents,
  serializeCommissions,
} from '../commissions/commissions.service.ts';
import {
  type CustomerTransactionsQuery,
  customerSalesPage,
  lockCustomer,
  saleVersionBumpStatement,
  saleVersionGuardStatement,
  type TakeSales,
} from '../customers/customers.service.ts';
import {
  findCodeForSale,
  partnerAttributedBy,
  redeemForSale,
} from '../promotion-codes/promotion-codes.service.ts';
import type { AffiliateTransactionCustomer } from './transactions.affiliate.schemas.ts';
import { affiliateSales, affiliateSalesEarning, storedAffiliateSales } from './transactions.affiliate.ts';
import { applySaleFigures, saleFigureStatements } from './transactions.figures.ts';
import { inWriteTransaction } from './transactions.group-commit.ts';
import { referralSales, storedReferralSales } from './transactions.referral.ts';
import * as repository from './transactions.repository.ts';
import { writeDecidedSale } from './transactions.sale-batch.ts';
import type {
  AffiliateTransactionBody,
  ReferralTransactionBody,
  RefundTransactionBody,
} from './transactions.schemas.ts';
import {
  type RewardRow,
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
  return recordSale(trx, ctx, handler, storedAffiliateSales, entry);
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
    throw fieldError(`transactions.${duplicate}.key`, 'distinct');
  }
  const [single] = entries;
  if (!multiple && single && atOnce(ctx, handler, single)) {
    const db = ctx.database.db;
    return recordSale(db, ctx, handler, stored, single, {
      insertFirst: true,
      write: (request) => writeSaleAtOnce(ctx, handler, single, request),
    });
  }
  const data = await inWriteTransaction(ctx.database, async (trx) => {
    const out: unknown[] = [];
    for (const [index, entry] of entries.entries()) {
      try {
        out.push(await recordSale(trx, ctx, handler, stored, entry));
      } catch (error) {
        throw multiple ? underPath(error, `transactions.${index}.`, isSharedField) : error;
      }
    }
    return out;
  });
  return multiple ? data : data[0];
}

/** Whether a sale goes without a transaction (`writeSaleAtOnce`): one sale, on PostgreSQL, without a code. */
function atOnce<Customer, Prepared>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  entry: SaleEntry<Customer>,
): boolean {
  return ctx.database.dialect === 'postgres' && handler.readAtOnce !== undefined && !saleCodeOf(entry);
}

/**
 * One sale, insert-or-replay on its key (core/insert-or-replay.ts): replayed when its key is
 * stored with the same request, refused when with another, otherwise decided from what `prepare`
 * read and written at once (rows, figures, event). `writer` replaces the write in a transaction;
 * with `insertFirst` it is one that finds a taken key itself (`writeSaleAtOnce`).
 */
async function recordSale<Customer extends { id?: string; key?: string; email?: string }, Prepared>(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  stored: StoredSales,
  entry: SaleEntry<Customer>,
  writer: {
    write: (request: SaleRequest) => Promise<{ data: unknown } | undefined>;
    insertFirst: boolean;
  } = { write: (request) => writeSale(trx, ctx, handler, entry, request), insertFirst: false },
) {
  const programId = ctx.program.id;
  const amountMicros = amountOrThrow(entry.amount, 'amount');
  const key = entry.key ?? newKey();
  const digest = transactionDigest(entry, amountMicros, entry.customer);
  const outcome = await insertOrReplay({
    find: () => repository.findTransactionByKey(trx, programId, key),
    sameRequest: (row) => row.request_digest === digest,
    taken: () => fieldError('key', 'taken'),
    insert: () => writer.write({ key, digest, amountMicros }),
    insertFirst: writer.insertFirst,
  });
  if ('created' in outcome) return outcome.created.data;
  const [data] = await stored.serializeCreated(trx, ctx, [outcome.replayed]);
  return data;
}

interface SaleRequest {
  key: string;
  digest: string;
  amountMicros: bigint;
}

/** Decides a new sale and writes it: the row first (nothing when its key is taken), then the rest. */
async function writeSale<Customer, Prepared>(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  entry: SaleEntry<Customer>,
  request: SaleRequest,
) {
  const programId = ctx.program.id;
  const code = saleCodeOf(entry);
  const target = code ? await findCodeForSale(trx, ctx, code.value, code.field) : undefined;
  const prepared = await handler.prepare(trx, ctx, entry, {
    partner: target ? await partnerAttributedBy(trx, ctx, target) : undefined,
  });
  // Taken inside the write transaction, so creation order and `created_at` agree.
  const now = nowTimestamp(ctx.clock);
  const sale = saleInputOf(entry, request.amountMicros, now);
  const decision = handler.decide(prepared, sale);
  const { row, rewardIds } = await repository.insertSale(
    trx,
    saleRowOf(programId, entry, request, sale, decision),
    decision.rewards.length,
  );
  if (!row) return undefined;
  // Redeemed with the sale's key in the sale's transaction: a refusal (422 on the code's field)
  // rolls the sale back with it.
  if (target && code) {
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
  }
  const rewardValues = rewardValuesOf(row, decision);
  // PostgreSQL took the rewards' ids with the sale: they are written below with the rest.
  const rewards = rewardIds
    ? rewardValues.map((values, i) => newRewardRow(values, rewardIds[i]))
    : await repository.insertRewards(trx, rewardValues);
  const { data, statements } = await saleWrites(trx, ctx, handler, prepared, row, rewards, decision);
  // The rest in one statement on PostgreSQL (db/together.ts), the program's figures first: the
  // figure rows are the ones concurrent sales share, so their locks are held from here to the
  // commit only. The buyer, locked since it was read, gets a new sale version (migration 0023).
  await repository.executeTogether(trx, [
    ...statements,
    ...(rewardIds ? repository.rewardsStatement(trx, rewards) : []),
    ...(ctx.database.dialect === 'postgres'
      ? [saleVersionBumpStatement(trx, programId, decision.customerId)]
      : []),
  ]);
  return { data };
}

/** Attempts of a sale written without a transaction before it takes its buyer's lock instead. */
const AT_ONCE_ATTEMPTS = 3;

/**
 * PostgreSQL, one sale without a promotion code: read without a lock, decided, and written in one
 * statement that applies only if the buyer's sale version is still the one read (migration 0023),
 * with the program's other such sales of the same turn when it has no active webhook
 * (transactions.sale-batch.ts): two round trips instead of a transaction's six, and no replay
 * look-up before them (the write finds a taken key itself). A concurrent write to the same buyer makes it decide again; after
 * AT_ONCE_ATTEMPTS, or when the buyer does not exist yet, the sale takes the transaction path.
 * Answers undefined when the key is taken (insertOrReplay then replays or refuses).
 */
async function writeSaleAtOnce<Customer, Prepared>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  entry: SaleEntry<Customer>,
  request: SaleRequest,
): Promise<{ data: unknown } | undefined> {
  const db = ctx.database.db;
  // A stored key answers by replay before anything this request would decide or refuse now
  // (its buyer deleted since, the program's settings changed): asked only off the usual path.
  const keyStored = async () =>
    (await repository.findTransactionByKey(db, ctx.program.id, request.key).catch(() => undefined)) !==
    undefined;
  let written: { data: unknown } | 'taken' | 'locked';
  try {
    written = await attemptAtOnce(ctx, handler, entry, request);
  } catch (error) {
    if (await keyStored()) return undefined;
    throw error;
  }
  if (written === 'taken' || (written === 'locked' && (await keyStored()))) return undefined;
  if (written !== 'locked') return written;
  return ctx.database.inWriteTransaction((trx) => writeSale(trx, ctx, handler, entry, request));
}

/** `writeSaleAtOnce`'s tries: written, the key taken, or 'locked' when the transaction path must decide. */
async function attemptAtOnce<Customer, Prepared>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  entry: SaleEntry<Customer>,
  request: SaleRequest,
): Promise<{ data: unknown } | 'taken' | 'locked'> {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  for (let attempt = 0; attempt < AT_ONCE_ATTEMPTS; attempt++) {
    const read = await handler.readAtOnce?.(db, ctx, entry);
    if (!read) return 'locked';
    const now = nowTimestamp(ctx.clock);
    const sale = saleInputOf(entry, request.amountMicros, now);
    const decision = handler.decide(read.prepared, sale);
    if (decision.rewards.length > read.rewardIds.length) return 'locked';
    const row: TransactionRow = {
      id: read.saleId,
      ...saleRowOf(programId, entry, request, sale, decision),
      refunded_amount: null,
    };
    const rewards = rewardValuesOf(row, decision).map((values, i) => newRewardRow(values, read.rewardIds[i]));
    const decided = {
      customerId: decision.customerId,
      seen: read.version,
      moves: decision.countsForLaterSales,
      row,
      rewards,
      figures: decision.figures,
    };
    let data: unknown;
    try {
      if (read.subscribed) {
        const writes = await saleWrites(db, ctx, handler, read.prepared, row, rewards, decision);
        data = writes.data;
        await repository.executeGuarded(
          db,
          [saleVersionGuardStatement(db, programId, decided.customerId, decided.seen, decided.moves)],
          [
            ...repository.salesStatement(db, [row]),
            ...repository.rewardsStatement(db, rewards),
            ...writes.statements,
          ],
        );
      } else {
        // No events to write: with the program's other such sales of this turn, and only while
        // the program still has no active webhook (transactions.sale-batch.ts).
        data = handler.created(read.prepared, row, rewards);
        await writeDecidedSale(db, programId, decided);
      }
      return { data };
    } catch (error) {
      if (uniqueViolationColumn(error) === 'key') return 'taken';
      // Its partner was deleted meanwhile (a deleted buyer fails the guard): the transaction path
      // says so properly.
      if (translateDriverError(error)?.kind === 'foreign_key') return 'locked';
      if (!isRetryable(error)) throw error;
    }
  }
  return 'locked';
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

function rewardValuesOf(row: TransactionRow, decision: SaleDecision): repository.NewReward[] {
  return decision.rewards.map((reward) => ({
    program_id: row.program_id,
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
    created_at: row.created_at,
    deleted_at: null,
  }));
}

/** The sale's answer, and its events and figures as statements (written by the caller). */
async function saleWrites<Customer, Prepared>(
  db: Kysely<DB>,
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared>,
  prepared: Prepared,
  row: TransactionRow,
  rewards: readonly RewardRow[],
  decision: SaleDecision,
) {
  const programId = ctx.program.id;
  const data = handler.created(prepared, row, rewards);
  const events: DomainEvent[] = [
    { event: 'transaction.created', payload: data, createdAt: row.created_at },
    ...(await saleCommissionEvents(db, ctx, rewards, handler.names?.(prepared, row))),
  ];
  return {
    data,
    statements: [
      ...saleFigureStatements(db, programId, row.created_at, decision.figures),
      ...eventsStatement(db, programId, events),
    ],
  };
}

/**
 * A reward row as stored by its insert: the columns the sale gave, its id, the rest empty. The id
 * was reserved with the sale, one per reward; a missing one is a bug, not a refusal.
 */
function newRewardRow(values: repository.NewReward, id: number | undefined): RewardRow {
  if (id === undefined) throw new Error('a reward has no reserved id');
  return {
    ...values,
    id,
    payout_id: null,
    approved_at: null,
    paid_at: null,
    reason: null,
    description: null,
    updated_at: null,
    original_amount: null,
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
  if (ctx.database.dialect === 'postgres') await lockCustomer(trx, ctx.program.id, customerId);
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
    if (ctx.database.dialect === 'postgres') await repository.lockTransaction(trx, programId, row.id);
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
    const [data] = await stored.serialize(trx, ctx, [after]);
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
