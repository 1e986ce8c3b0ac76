import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError, type FieldErrors, validationError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { messages } from '../../core/messages.ts';
import { nowTimestamp } from '../../core/time.ts';
import { uniqueViolationColumn } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { type PageRequest, pageWindow } from '../../http/pagination.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { affiliateTransactions } from './transactions.affiliate.ts';
import { inWriteTransaction } from './transactions.group-commit.ts';
import { referralTransactions } from './transactions.referral.ts';
import * as repository from './transactions.repository.ts';
import {
  type TransactionBehaviour,
  type TransactionEntry,
  type TransactionProgramType,
  type TransactionRow,
  transactionDigest,
  transactionNotFound,
} from './transactions.shared.ts';

/**
 * `/v1/transactions…` for every program type that has transactions: the flow is shared (replay
 * rule, all-or-nothing multiple form, archive, delete, events); what a sale does is the type's.
 */
const transactionBehaviour = {
  affiliate: affiliateTransactions,
  referral: referralTransactions,
} satisfies Record<TransactionProgramType, TransactionBehaviour>;

export function transactionBehaviourOf(ctx: ProgramContext): TransactionBehaviour {
  return transactionBehaviour[ctx.program.type as TransactionProgramType];
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

/** The sale entries of a create body: itself (single form) or its `transactions` with the shared part. */
function entriesOf(body: Record<string, unknown>): { entries: TransactionEntry[]; multiple: boolean } {
  const { transactions, ...shared } = body;
  if (Array.isArray(transactions)) {
    const common = { customer: shared.customer, options: shared.options };
    return {
      entries: transactions.map((item) => ({ ...(item as object), ...common }) as TransactionEntry),
      multiple: true,
    };
  }
  const missing: FieldErrors = {};
  for (const field of ['amount', 'action']) {
    if (body[field] === undefined) missing[field] = [messages.required(field)];
  }
  if (Object.keys(missing).length > 0) throw validationError(missing);
  return { entries: [body as TransactionEntry], multiple: false };
}

async function createOne(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  behaviour: TransactionBehaviour,
  entry: TransactionEntry,
): Promise<{ row: TransactionRow; replayed: boolean }> {
  const key = entry.key ?? newKey();
  const digest = transactionDigest(entry);
  const existing = await repository.findTransactionByKey(trx, ctx.program.id, key);
  if (existing) {
    if (existing.request_digest === digest) return { row: existing, replayed: true };
    throw validationError({ key: [messages.taken('key')] });
  }
  return { row: await behaviour.record(trx, ctx, entry, key, digest), replayed: false };
}

/** `POST /v1/transactions`: one sale, or several all-or-nothing; a same-key same-body replay is a no-op. */
export async function createTransactions(ctx: ProgramContext, body: Record<string, unknown>) {
  const behaviour = transactionBehaviourOf(ctx);
  const { entries, multiple } = entriesOf(body);
  const keys = entries.map((entry) => entry.key).filter((key) => key !== undefined);
  const duplicate = keys.findIndex((key, i) => keys.indexOf(key) !== i);
  if (duplicate >= 0)
    throw validationError({
      [`transactions.${duplicate}.key`]: [messages.distinct(`transactions.${duplicate}.key`)],
    });
  try {
    const data = await inWriteTransaction(ctx.database, async (trx) => {
      const out: unknown[] = [];
      for (const [index, entry] of entries.entries()) {
        try {
          const { row, replayed } = await createOne(trx, ctx, behaviour, entry);
          const [serialized] = await (behaviour.serializeCreated ?? behaviour.serialize)(trx, ctx, [row]);
          if (!replayed)
            await recordEvent(trx, ctx.program.id, 'transaction.created', serialized, row.created_at);
          out.push(serialized);
        } catch (error) {
          throw multiple ? prefixFieldErrors(error, index) : error;
        }
      }
      return out;
    });
    return multiple ? data : data[0];
  } catch (error) {
    // Two requests with one new key at once: the loser answers as if it came second.
    if (uniqueViolationColumn(error) === 'key') throw validationError({ key: [messages.taken('key')] });
    throw error;
  }
}

async function getRowOrThrow(db: Kysely<DB>, ctx: ProgramContext, key: string) {
  const row = await repository.findTransactionByKey(db, ctx.program.id, key);
  if (!row) throw transactionNotFound();
  return row;
}

export async function getTransaction(ctx: ProgramContext, key: string) {
  const db = ctx.database.db;
  const [data] = await transactionBehaviourOf(ctx).serialize(db, ctx, [await getRowOrThrow(db, ctx, key)]);
  return data;
}

export async function listTransactions(ctx: ProgramContext, query: PageRequest & Record<string, unknown>) {
  const db = ctx.database.db;
  const behaviour = transactionBehaviourOf(ctx);
  const filter = await behaviour.listFilter(db, ctx, query);
  if (!filter) return [];
  const rows = await repository.listTransactions(db, ctx.program.id, filter, pageWindow(query), query.sort);
  return behaviour.serialize(db, ctx, rows);
}

/** Archived transactions and their rewards leave every total; revoke-archive brings them back. */
export async function archiveTransaction(ctx: ProgramContext, key: string): Promise<void> {
  const behaviour = transactionBehaviourOf(ctx);
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, ctx, key);
    if (row.archived_at !== null) return;
    await behaviour.applyEffects(trx, ctx, row, -1);
    await repository.updateTransaction(trx, ctx.program.id, row.id, { archived_at: nowTimestamp(ctx.clock) });
  });
}

export async function revokeArchiveTransaction(ctx: ProgramContext, key: string): Promise<void> {
  const behaviour = transactionBehaviourOf(ctx);
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, ctx, key);
    if (row.archived_at === null) return;
    await repository.updateTransaction(trx, ctx.program.id, row.id, { archived_at: null });
    await behaviour.applyEffects(trx, ctx, { ...row, archived_at: null }, 1);
  });
}

/** Removes one transaction inside the caller's transaction: counters, rows, event. */
export async function deleteTransactionRow(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow) {
  const behaviour = transactionBehaviourOf(ctx);
  const [serialized] = await behaviour.serialize(trx, ctx, [row]);
  if (row.archived_at === null) await behaviour.applyEffects(trx, ctx, row, -1);
  await repository.deleteTransaction(trx, ctx.program.id, row.id);
  await recordEvent(trx, ctx.program.id, 'transaction.deleted', serialized, nowTimestamp(ctx.clock));
}

export async function deleteTransaction(ctx: ProgramContext, key: string): Promise<void> {
  await ctx.database.db.transaction().execute(async (trx) => {
    await deleteTransactionRow(trx, ctx, await getRowOrThrow(trx, ctx, key));
  });
}

/** Every transaction a customer bought, for a customer delete that takes them with it. */
export async function transactionsOfBuyer(db: Kysely<DB>, programId: number, customerId: number) {
  return repository.listTransactionsOfBuyer(db, programId, customerId);
}
