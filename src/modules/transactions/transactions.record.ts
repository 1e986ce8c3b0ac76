/** Recording sales: one or several all-or-nothing, insert-or-replay on the key, decided by the type and written by the sale writer. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { fieldError, underPath } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import { amountOrThrow } from '../../core/money.ts';
import type { SaleDecision, SaleInput } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { saleCommissionEvents } from '../commissions/commissions.service.ts';
import type { FraudOutcome } from '../fraud/fraud.schemas.ts';
import {
  fraudOutcomeOf,
  openFlags,
  readSaleClick,
  type SaleClick,
  saleFraudOf,
  saleMayFire,
} from '../fraud/fraud.service.ts';
import {
  findCodeForSale,
  partnerAttributedBy,
  redeemForSale,
} from '../promotion-codes/promotion-codes.service.ts';
import * as repository from './transactions.repository.ts';
import { type SaleWriter, saleWriterIn, saleWriterOf } from './transactions.sale-writer.ts';
import {
  type SaleCompanion,
  type SaleEntry,
  type SaleHandler,
  type SaleRequest,
  type SaleSteps,
  type StoredSales,
  saleInputOf,
  transactionDigest,
  type UnlockedRead,
} from './transactions.shared.ts';
import { onlyOne } from './transactions.stored.ts';

export interface CreateBody<Customer> {
  customer: Customer;
  options?: SaleEntry<Customer>['options'];
  context?: SaleEntry<Customer>['context'];
  transactions?: Omit<SaleEntry<Customer>, 'customer' | 'options'>[] | undefined;
}

/** The sale entries of a create body: itself (single form) or its `transactions` with the shared part. */
export function entriesOf<Customer>(body: CreateBody<Customer> & Partial<SaleEntry<Customer>>) {
  const { transactions, ...single } = body;
  if (transactions) {
    return {
      entries: transactions.map((item) => ({
        ...item,
        customer: body.customer,
        options: body.options,
        context: body.context,
      })),
      multiple: true,
    };
  }
  // The route schema requires `amount` and `action` in the single form.
  return { entries: [single as SaleEntry<Customer>], multiple: false };
}

export async function createWith<
  Customer extends { id?: string; key?: string; email?: string },
  Prepared,
  Created,
>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared, Created>,
  stored: StoredSales<unknown, Created>,
  body: CreateBody<Customer> & Partial<SaleEntry<Customer>>,
  unlocked?: UnlockedSaleRead<Customer, Prepared>,
  trx?: Kysely<DB>,
  companion?: SaleCompanion,
) {
  const { entries, multiple } = entriesOf(body);
  if (companion && multiple) throw new Error('a sale companion goes with one sale');
  const keys = entries.map((entry) => entry.key).filter((key) => key !== undefined);
  const duplicate = keys.findIndex((key, i) => keys.indexOf(key) !== i);
  if (duplicate >= 0) {
    throw fieldError(`transactions.${duplicate}.key`, 'distinct');
  }
  const [single] = entries;
  if (!multiple && single) {
    return trx
      ? recordSale(trx, ctx, handler, stored, single, saleWriterIn(trx, ctx), undefined, companion)
      : recordSale(ctx.database.db, ctx, handler, stored, single, saleWriterOf(ctx), unlocked, companion);
  }
  const all = async (trx: Kysely<DB>) => {
    const out: Created[] = [];
    for (const [index, entry] of entries.entries()) {
      try {
        out.push(await recordSale(trx, ctx, handler, stored, entry, saleWriterIn(trx, ctx)));
      } catch (error) {
        throw multiple ? underPath(error, `transactions.${index}.`, isSharedField) : error;
      }
    }
    return out;
  };
  return trx ? all(trx) : ctx.database.inWriteTransaction(all);
}

/** The one-statement read of a type's buyer, unlocked, for the writer's guarded strategy. */
export type UnlockedSaleRead<Customer, Prepared> = (
  db: Kysely<DB>,
  ctx: ProgramContext,
  entry: SaleEntry<Customer>,
) => Promise<UnlockedRead<Prepared> | undefined>;

/**
 * One sale, insert-or-replay on its key (core/insert-or-replay.ts): replayed when its key is
 * stored with the same request, refused when with another, otherwise decided and written by
 * `writer` (transactions.sale-writer.ts), which chooses how the rows are written.
 */
export async function recordSale<
  Customer extends { id?: string; key?: string; email?: string },
  Prepared,
  Created,
>(
  db: Kysely<DB>,
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared, Created>,
  stored: StoredSales<unknown, Created>,
  entry: SaleEntry<Customer>,
  writer: SaleWriter,
  unlocked?: UnlockedSaleRead<Customer, Prepared>,
  companion?: SaleCompanion,
) {
  const programId = ctx.program.id;
  const amountMicros = amountOrThrow(entry.amount, 'amount');
  const key = entry.key ?? newKey();
  const digest = transactionDigest(entry, amountMicros, entry.customer);
  // What the sale's own rules read (its click, its owner's portal sightings), once before the write.
  const click = await readSaleClick(db, ctx, entry.context);
  const steps = {
    ...saleSteps(ctx, handler, entry, { key, digest, amountMicros }, unlocked, click),
    companions: companion?.statements ?? [],
  };
  const outcome = await insertOrReplay({
    find: () => repository.findTransactionByKey(db, programId, key),
    sameRequest: (row) => row.request_digest === digest,
    taken: () => fieldError('key', 'taken'),
    insert: () => writer.write(steps),
    insertFirst: writer.findsTakenKey,
  });
  if ('created' in outcome) {
    companion?.written();
    return outcome.created.data;
  }
  return onlyOne(await stored.serializeCreated(db, ctx, [outcome.replayed]));
}

/** What a sale read, with the promotion code it redeems (none on the unlocked read). */
export interface PreparedSale<Prepared> {
  prepared: Prepared;
  target: Awaited<ReturnType<typeof findCodeForSale>> | undefined;
}

/** How the service decides a sale, as steps for the writer: reads, the pure decision, the answer. */
export function saleSteps<Customer, Prepared, Created>(
  ctx: ProgramContext,
  handler: SaleHandler<Customer, Prepared, Created>,
  entry: SaleEntry<Customer>,
  request: SaleRequest,
  unlocked: UnlockedSaleRead<Customer, Prepared> | undefined,
  click?: SaleClick,
): Omit<SaleSteps<PreparedSale<Prepared>, Created>, 'companions'> {
  const code = saleCodeOf(entry);
  // A sale whose rules may fire opens flags in its transaction: never written unlocked (later,
  // when it is decided, a click can only have stopped firing).
  const flagged = saleMayFire(click, nowTimestamp(ctx.clock));
  let held: { fraud: ReturnType<typeof saleFraudOf>; flag: string; partnerId: number } | undefined;
  // What the answer says of the sale's own rules (`fraud`), as a customer's create does.
  let outcome: FraudOutcome | undefined;
  return {
    key: request.key,
    prepare: async (trx) => {
      const target = code ? await findCodeForSale(trx, ctx, code.value, code.field) : undefined;
      const partner = target ? await partnerAttributedBy(trx, ctx, target) : undefined;
      return { prepared: await handler.prepare(trx, ctx, entry, { partner }), target };
    },
    // A sale with a code redeems it in the sale's transaction: never read unlocked.
    readUnlocked:
      unlocked && !code && !flagged
        ? async (db) => {
            const read = await unlocked(db, ctx, entry);
            return read && { ...read, prepared: { prepared: read.prepared, target: undefined } };
          }
        : undefined,
    decide: ({ prepared }) => {
      const sale = saleInputOf(entry, request.amountMicros, nowTimestamp(ctx.clock));
      let decision = handler.decide(prepared, sale);
      held = undefined;
      outcome = undefined;
      const partnerId = decision.partnerId;
      const owner = partnerId === null ? undefined : { kind: 'partner', id: partnerId };
      const fraud = saleFraudOf(click, owner, sale.at);
      if (partnerId !== null && fraud.fired.length > 0) {
        const flag = fraud.blocked ? null : newKey();
        decision = handler.decide(prepared, sale, { heldBy: flag, blocked: fraud.blocked });
        if (flag !== null) held = { fraud, flag, partnerId };
        outcome = fraudOutcomeOf(fraud, []);
      }
      const row = saleRowOf(ctx.program.id, entry, request, sale, decision, handler.buyerKey(prepared));
      return { decision, row };
    },
    // Redeemed with the sale's key in the sale's transaction: a refusal (422 on the code's
    // field) rolls the sale back with it.
    afterInsert: async (trx, { prepared, target }, row, decision) => {
      if (held) {
        const ref = handler.names?.(prepared, row).partners.get(held.partnerId) ?? '';
        const subject = { kind: 'transaction' as const, id: row.id, ref: row.key };
        const owner = { kind: 'partner' as const, id: held.partnerId, ref };
        const opened = await openFlags(trx, ctx, held.fraud, subject, owner, held.flag);
        outcome = fraudOutcomeOf(held.fraud, opened);
      }
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
    answer: ({ prepared }, row, rewards) => {
      const created = handler.created(prepared, row, rewards);
      return outcome ? { ...created, fraud: outcome } : created;
    },
    events: (db, { prepared }, row, rewards) =>
      saleCommissionEvents(db, ctx, rewards, handler.names?.(prepared, row)),
  };
}

/** The stored sale's columns. */
export function saleRowOf(
  programId: number,
  entry: { action: string },
  request: SaleRequest,
  sale: SaleInput,
  decision: SaleDecision,
  customerKey: string,
): repository.NewTransaction {
  return {
    program_id: programId,
    key: request.key,
    customer_id: decision.customerId,
    customer_key: customerKey,
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
export function saleCodeOf(entry: {
  promotion_code?: string | undefined;
  discount_code?: string | undefined;
}) {
  if (entry.promotion_code !== undefined) return { value: entry.promotion_code, field: 'promotion_code' };
  if (entry.discount_code !== undefined) return { value: entry.discount_code, field: 'discount_code' };
  return undefined;
}

// Fields of the shared part of the multiple form keep their name; the others go under `transactions.N.`.
export const isSharedField = (field: string) => /^(customer|options)(\.|$)/.test(field);
