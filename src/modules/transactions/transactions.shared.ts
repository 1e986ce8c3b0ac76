import { createHash } from 'node:crypto';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { fromMicros } from '../../core/money.ts';
import type { ProgramType } from '../../core/program-types.ts';
import type { RewardsTable, TransactionsTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';
import { insertRewards, insertTransaction, type TransactionListFilter } from './transactions.repository.ts';

/**
 * What the transactions module shares between program types: which types have transactions,
 * what each must implement (`transactions.<type>.ts`, listed in transactions.service.ts), and the
 * pieces of the create flow that do not depend on the type.
 */
export const transactionProgramTypes = ['affiliate', 'referral'] as const satisfies readonly ProgramType[];
export type TransactionProgramType = (typeof transactionProgramTypes)[number];

export type TransactionRow = Selectable<TransactionsTable>;
export type RewardRow = Selectable<RewardsTable>;

/** One sale as the create flow hands it to a type: the multiple form is split into these. */
export interface TransactionEntry {
  key?: string;
  amount: number | string;
  amount_units?: string;
  action: string;
  rewarded?: unknown;
  rewardable?: unknown;
  product_id?: string;
  product_type?: string;
  customer: Record<string, unknown>;
  options?: { create_customer?: unknown };
  [field: string]: unknown;
}

export interface TransactionBehaviour {
  /**
   * Resolves the buyer (creating it when `options.create_customer` says so), computes the rewards
   * and stores the sale with them, feeding every counter, all in `trx`. Field errors name the
   * entry's fields (`amount`, `customer`); the create flow prefixes them in the multiple form.
   */
  record(
    trx: Kysely<DB>,
    ctx: ProgramContext,
    entry: TransactionEntry,
    key: string,
    digest: string,
  ): Promise<TransactionRow>;
  /** Stored transactions, with their rewards, in the type's wire shape. */
  serialize(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]): Promise<unknown[]>;
  /** The create response's shape, when it differs from `serialize` (refer-a-friend: referrer in `partner`). */
  serializeCreated?(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]): Promise<unknown[]>;
  /** Feeds (+1) or takes back (-1) every counter the transaction and its rewards fed. */
  applyEffects(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow, sign: 1 | -1): Promise<void>;
  /** The list filters of the type; `undefined` when a filter names nothing (empty list). */
  listFilter(
    db: Kysely<DB>,
    ctx: ProgramContext,
    query: Record<string, unknown>,
  ): Promise<TransactionListFilter | undefined>;
}

/** Who a sale concerns and what it is worth, as the type decided them. */
export interface SaleParties {
  customer_id: number;
  partner_id: number | null;
  referring_customer_id: number | null;
  amount: number;
  amount_units: string | null;
}

/** One sale being recorded: the entry, its key and replay digest, and when it is recorded. */
export interface SaleRecording {
  entry: TransactionEntry;
  key: string;
  digest: string;
  now: string;
}

/**
 * Stores a sale and its rewards, as the type decided them, in the caller's transaction (the
 * rewards take the sale's product and time).
 */
export async function insertSale(
  trx: Kysely<DB>,
  programId: number,
  sale: SaleRecording,
  parties: SaleParties,
  rewards: readonly RewardDecision[],
): Promise<{ row: TransactionRow; rewards: RewardRow[] }> {
  const row = await insertTransaction(trx, saleValues(programId, sale, parties));
  return {
    row,
    rewards: await insertRewards(
      trx,
      rewards.map((reward) => rewardValues(programId, row, reward, sale.now)),
    ),
  };
}

function saleValues(
  programId: number,
  { entry, key, digest, now }: SaleRecording,
  parties: SaleParties,
): Insertable<TransactionsTable> {
  return {
    program_id: programId,
    key,
    ...parties,
    action: entry.action,
    is_currency: true,
    credit: false,
    rewarded: toBool(entry.rewarded, false),
    rewardable: toBool(entry.rewardable, true),
    product_id: entry.product_id ?? null,
    product_type: entry.product_type ?? null,
    request_digest: digest,
    archived_at: null,
    created_at: now,
    deleted_at: null,
  };
}

/** What the type decided about one reward of a sale. */
export type RewardDecision = Pick<
  Insertable<RewardsTable>,
  | 'partner_id'
  | 'customer_id'
  | 'role'
  | 'status'
  | 'amount'
  | 'amount_units'
  | 'is_currency'
  | 'commission_type'
  | 'commission_value'
  | 'available_at'
>;

function rewardValues(
  programId: number,
  row: TransactionRow,
  reward: RewardDecision,
  now: string,
): Insertable<RewardsTable> {
  return {
    program_id: programId,
    transaction_id: row.id,
    ...reward,
    credit: false,
    product_id: row.product_id,
    product_type: row.product_type,
    created_at: now,
    deleted_at: null,
  };
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
    amount: fromMicros(Number(reward.amount)),
    amount_units: reward.amount_units,
    is_currency: Boolean(reward.is_currency),
    credit: Boolean(reward.credit),
    created_at: reward.created_at,
    deleted_at: shown.deletedAt,
    product_type_data: productTypeData(reward),
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
    rewards,
  };
}

export function transactionNotFound(): AppError {
  return new AppError('not_found', 'Transaction not found.');
}

/** `true`, `"true"`, `1` → true; `false`, `"false"`, `0` → false; absent → the fallback. */
export function toBool(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  return value === true || value === 'true' || value === 1 || value === '1';
}

/**
 * What makes two create requests "the same" for the replay rule (contract §6): the sale's own
 * fields and who bought, not the details sent to create the buyer.
 */
export function transactionDigest(entry: TransactionEntry): string {
  const customer = entry.customer ?? {};
  const canonical = {
    amount: Number(entry.amount),
    amount_units: entry.amount_units?.toUpperCase() ?? null,
    action: entry.action,
    rewarded: toBool(entry.rewarded, false),
    rewardable: toBool(entry.rewardable, true),
    product_id: entry.product_id ?? null,
    product_type: entry.product_type ?? null,
    customer: { id: customer.id ?? null, key: customer.key ?? null, email: customer.email ?? null },
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}
