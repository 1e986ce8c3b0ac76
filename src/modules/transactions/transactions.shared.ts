import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { AppError } from '../../core/errors.ts';
import { microsFrom, microsToNumber, microsToText } from '../../core/money.ts';
import type { ProgramType } from '../../core/program-types.ts';
import type { SaleDecision, SaleInput } from '../../core/sales.ts';
import { rejectionReason } from '../../core/self-referral.ts';
import type { RewardsTable, TransactionsTable } from '../../db/domain-tables.ts';
import type { BoundStatement } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { CompanionWrites } from '../../db/together.ts';
import type { DomainEvent } from '../../outbox/outbox.ts';
import type { KnownNames } from '../commissions/commissions.service.ts';
import type { RequestContext } from '../fraud/fraud.schemas.ts';
import type { NewTransaction, TransactionListFilter } from './transactions.repository.ts';
import type { SaleFieldsSchema } from './transactions.shared.schemas.ts';

/**
 * What the transactions module shares between program types: which types have transactions,
 * what each type's sale handler implements (`transactions.<type>.ts`, listed in
 * transactions.service.ts), and the pieces of the sale flow that do not depend on the type.
 */
export const transactionProgramTypes = ['affiliate', 'referral'] as const satisfies readonly ProgramType[];
export type TransactionProgramType = (typeof transactionProgramTypes)[number];

export type TransactionRow = Selectable<TransactionsTable>;
export type RewardRow = Selectable<RewardsTable>;

/** The sale fields of a create body (single form) or of one `transactions` item. */
type SaleFields = Static<typeof SaleFieldsSchema>;

/** One sale as the create flow hands it to a type: the multiple form is split into these. */
export type SaleEntry<Customer> = SaleFields & {
  amount: number | string;
  action: string;
  customer: Customer;
  options?: { create_customer?: boolean | 'true' | 'false' | 1 | 0 } | undefined;
  /** The buyer's request, for the fraud rules on a buyer the sale creates (core/fraud.ts). */
  context?: RequestContext | undefined;
};

/**
 * What one program type does with a sale: read what the decision needs (creating the buyer when
 * `options.create_customer` says so), decide with the pure rule of `core/sales.ts`, and show the
 * result. The flow around it (replay, all-or-nothing, writes, events) is the service's.
 */
export interface SaleHandler<Customer, Prepared, Created> {
  /** Reads the buyer and its history in `trx`; field errors name the entry's fields. */
  prepare(
    trx: Kysely<DB>,
    ctx: ProgramContext,
    entry: SaleEntry<Customer>,
    hints?: SaleHints,
  ): Promise<Prepared>;
  /** Sales (or purchases) the buyer made before this one: a first-order-only code reads it. */
  salesBefore(prepared: Prepared): number;
  /** The buyer's key, which the sale's row keeps (migration 0043). */
  buyerKey(prepared: Prepared): string;
  /** `fraud`: what the sale's own fraud rules decided (core/fraud.ts), when one fired. */
  decide(prepared: Prepared, sale: SaleInput, fraud?: SaleFraudHold): SaleDecision;
  /** The create response of a sale just written, from what `prepare` read: no second read. */
  created(prepared: Prepared, row: TransactionRow, rewards: readonly RewardRow[]): Created;
  /** Public names of the partners and buyer of the sale (commission events), when the type has commissions. */
  names?(prepared: Prepared, row: TransactionRow): KnownNames;
}

/** What the sale's promotion code adds to reading the buyer. */
/** A sale's own fraud verdict for its handler: hold the rewards under `heldBy`, or earn nothing. */
export interface SaleFraudHold {
  heldBy: string | null;
  blocked: boolean;
}

export interface SaleHints {
  /** The partner (public id) a buyer created without one gets: the code's only partner. */
  partner?: string | undefined;
}

/**
 * How a sale reaches the database (transactions.sale-writer.ts): the steps the service decides,
 * the writer runs them in the order its strategy needs.
 */
/** A sale's key and what makes a replay "the same request". */
export interface SaleRequest {
  key: string;
  digest: string;
  amountMicros: bigint;
}

/** A decided sale: its decision and the row it stores. */
export interface Decided {
  decision: SaleDecision;
  row: NewTransaction;
}

/** What the decision read, without a lock, in one statement (PostgreSQL), with the buyer's version. */
export interface UnlockedRead<Prepared> {
  prepared: Prepared;
  /** The buyer's `sale_version` when it was read. */
  version: number;
  saleId: number;
  /** Reward ids taken ahead with the read; a sale with more rewards takes the rest before writing. */
  rewardIds: number[];
  /** Whether the program had an active webhook: without one the sale builds no event. */
  subscribed: boolean;
}

/**
 * Rows of another module's that belong to one sale (the log row of the processor event that
 * recorded it): written in the sale's own statement or transaction, only when the sale is
 * written, never on a replay. `written` is told once they are stored with the sale.
 */
export type SaleCompanion = CompanionWrites;

/** The steps of one sale, as the service decides them; the writer runs them in its own order. */
export interface SaleSteps<Prepared, Data> {
  /** The sale's key (a taken key is answered by replay). */
  key: string;
  /** Written with the sale, after its own writes (`SaleCompanion`). */
  companions: readonly BoundStatement[];
  /** Reads what the decision needs, locked in `trx` (creating the buyer when asked). */
  prepare(trx: Kysely<DB>): Promise<Prepared>;
  /** PostgreSQL: the same read, unlocked; undefined when the buyer is unknown (the transaction decides). */
  readUnlocked?: ((db: Kysely<DB>) => Promise<UnlockedRead<Prepared> | undefined>) | undefined;
  /** Decides the sale now (its time taken here, so creation order and `created_at` agree). */
  decide(prepared: Prepared): Decided;
  /** After the sale row is stored in `trx`: its promotion code redeemed (a refusal rolls it back). */
  afterInsert?(
    trx: Kysely<DB>,
    prepared: Prepared,
    row: TransactionRow,
    decision: SaleDecision,
  ): Promise<void>;
  /** The create answer, from what `prepare` read. */
  answer(prepared: Prepared, row: TransactionRow, rewards: readonly RewardRow[]): Data;
  /** The sale's events besides `transaction.created` (its commissions'). */
  events(
    db: Kysely<DB>,
    prepared: Prepared,
    row: TransactionRow,
    rewards: readonly RewardRow[],
  ): Promise<DomainEvent[]>;
}

/** How a type reads, lists and takes back stored sales: `Wire` in lists, `Created` as a create answers. */
export interface StoredSales<Wire, Created> {
  /** Stored transactions, with their rewards, in the type's wire shape. */
  serialize(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]): Promise<Wire[]>;
  /** The create response's shape of a stored sale (a replay answers it). */
  serializeCreated(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]): Promise<Created[]>;
  /** Takes back (-1) or restores (+1) every figure the sale and its rewards moved, in `trx`. */
  applyEffects(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow, sign: 1 | -1): Promise<void>;
  /** `GET /v1/customers/{id}/transactions`: the sales a customer's page shows, newest first. */
  listOfCustomer(
    db: Kysely<DB>,
    ctx: ProgramContext,
    customerId: number,
    window: { offset: number; fetch: number },
  ): Promise<Wire[]>;
  /** The list filters of the type; `undefined` when a filter names nothing (empty list). */
  listFilter(
    db: Kysely<DB>,
    ctx: ProgramContext,
    query: Record<string, unknown>,
  ): Promise<TransactionListFilter | undefined>;
}

/** The sale a request describes, in the decision's terms. */
export function saleInputOf(entry: SaleFields, amountMicros: bigint, at: string): SaleInput {
  return {
    amountMicros,
    currency: entry.amount_units?.toUpperCase() ?? null,
    rewardable: booleanOf(entry.rewardable, true),
    rewarded: booleanOf(entry.rewarded, false),
    productId: entry.product_id ?? null,
    productType: entry.product_type ?? null,
    at,
  };
}

/** Why a reward is `rejected` (a self-referral), on rejected rewards only. */
function rejectionOnWire(status: string): { reason?: string } {
  const reason = rejectionReason(status);
  return reason === undefined ? {} : { reason };
}

/** A reward's `product_type_data`: an empty array when it names no product. */
function productTypeData(reward: RewardRow) {
  return reward.product_id === null && reward.product_type === null
    ? []
    : { product_id: reward.product_id, product_type: reward.product_type };
}

/** How a type shows one reward: its status, who earns it, and when it counts as deleted. */
export interface RewardShown {
  status: string;
  customer: string | null;
  deletedAt: string | null;
}

/**
 * One reward of the sale `row` on the wire; `parties` (who else it concerns) follow `customer`,
 * in the order of `rewardSchema` (transactions.shared.schemas.ts).
 */
export function rewardOnWire<Parties extends object>(
  row: TransactionRow,
  reward: RewardRow,
  shown: RewardShown,
  parties: Parties,
) {
  return {
    key: row.key,
    action: row.action,
    status: shown.status,
    customer: shown.customer,
    ...parties,
    amount: microsToNumber(microsFrom(reward.amount)),
    amount_units: reward.amount_units,
    is_currency: Boolean(reward.is_currency),
    credit: Boolean(reward.credit),
    created_at: reward.created_at,
    deleted_at: shown.deletedAt,
    product_type_data: productTypeData(reward),
    ...rejectionOnWire(shown.status),
  };
}

/** What a transaction reports after its amount (`transactionOutcomeFields`), given its rewards on the wire. */
export function outcomeOnWire<Reward>(row: TransactionRow, deletedAt: string | null, rewards: Reward[]) {
  return {
    credit: Boolean(row.credit),
    is_currency: Boolean(row.is_currency),
    amount_units: row.amount_units,
    created_at: row.created_at,
    deleted_at: deletedAt,
    refunded_amount: microsToNumber(microsFrom(row.refunded_amount ?? 0)),
    rewards,
  };
}

/** A stored reward in the decision's terms (figures of archive, revoke-archive and delete). */
export function rewardFacts(reward: RewardRow) {
  return {
    role: reward.role,
    status: reward.status,
    partnerId: reward.partner_id === null ? null : Number(reward.partner_id),
    customerId: reward.customer_id === null ? null : Number(reward.customer_id),
    amountMicros: microsFrom(reward.amount),
    units: reward.amount_units,
    isCurrency: Boolean(reward.is_currency),
  };
}

export function transactionNotFound(): AppError {
  return new AppError('not_found', 'Transaction not found.');
}

/**
 * What makes two create requests "the same" for the replay rule (contract §6): the sale's own
 * fields, its exact amount and who bought, not the details sent to create the buyer.
 */
export function transactionDigest(
  entry: SaleFields & { action: string },
  amountMicros: bigint,
  customer: { id?: string | undefined; key?: string | undefined; email?: string | undefined },
): string {
  const sale = saleInputOf(entry, amountMicros, '');
  const canonical = {
    amount: microsToText(amountMicros),
    amount_units: sale.currency,
    action: entry.action,
    rewarded: sale.rewarded,
    rewardable: sale.rewardable,
    product_id: sale.productId,
    product_type: sale.productType,
    customer: { id: customer.id ?? null, key: customer.key ?? null, email: customer.email ?? null },
  };
  // A code joins the digest only when given, so digests of sales without one are unchanged.
  const code = entry.promotion_code ?? entry.discount_code;
  if (code !== undefined) Object.assign(canonical, { promotion_code: code.toLowerCase() });
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}
