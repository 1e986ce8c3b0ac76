import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { microsFrom, microsToNumber } from '../../core/money.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { type RewardRole, rewardCountMetric, rewardSettingsOf } from '../../core/rewards.ts';
import { customerMetrics, decideReferralSale, referralSaleFigures } from '../../core/sales.ts';
import { normalizeTimestamp } from '../../core/time.ts';
import { uniqueViolationColumn } from '../../db/errors.ts';
import { withSavepoint } from '../../db/savepoint.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { CounterFigures } from '../counters/counters.repository.ts';
import {
  type CustomerRow,
  countersOfCustomers,
  findCustomerByRef,
  findCustomersByIds,
  findCustomerWithReferrerForUpdate,
  insertReferralCustomer,
  lockCustomer,
  resolveReferrer,
  toReferralCustomer,
} from '../customers/customers.service.ts';
import { readProgram } from '../program/program.service.ts';
import { applySaleFigures } from './transactions.figures.ts';
import type {
  CreatedReferralTransaction,
  ReferralTransaction,
  ReferralTransactionCustomer,
} from './transactions.referral.schemas.ts';
import * as repository from './transactions.repository.ts';
import {
  outcomeOnWire,
  type RewardRow,
  rewardFacts,
  rewardOnWire,
  type SaleEntry,
  type SaleHandler,
  type StoredSales,
  type TransactionRow,
  type UnlockedRead,
} from './transactions.shared.ts';

/**
 * Sales of refer-a-friend programs. Only referred customers buy through the program: each sale
 * can earn a reward for the referrer and one for the buyer (core/rewards.ts), and moves the
 * referrer's figures, both balances and the program overview (core/sales.ts).
 */

type Customer = Static<typeof ReferralTransactionCustomer>;

interface ReferralPrepared {
  settings: ReturnType<typeof rewardSettingsOf>;
  currency: string;
  buyer: CustomerRow;
  referrerId: number;
  referrerPublicId: string | null;
  purchasesBefore: number;
  rewardsBefore: Record<RewardRole, number>;
}

const buyerRef = (input: Customer) => ({ id: input.id, key: input.key, email: input.email });

/**
 * Creates the buyer a sale names (`options.create_customer`), with its `customer.created` event.
 * Two requests creating one buyer at once: the loser's insert is rolled back to its savepoint and
 * the sale goes to the winner's customer; a clash on another field is a 422 on that field.
 */
async function createBuyer(trx: Kysely<DB>, ctx: ProgramContext, input: Customer) {
  const referrer = await resolveReferrer(trx, ctx, input.referring_customer, 'customer.referring_customer');
  try {
    const buyer = await withSavepoint(trx, async () => {
      const row = await insertReferralCustomer(trx, ctx, {
        id: input.id,
        key: input.key,
        email: input.email,
        name: input.name,
        surname: input.surname,
        created_at: input.created_at === undefined ? undefined : normalizeTimestamp(input.created_at),
        referrer,
      });
      await recordEvent(
        trx,
        ctx.program.id,
        'customer.created',
        await toReferralCustomer(trx, ctx, row),
        row.created_at,
      );
      return row;
    });
    return { buyer, referrerPublicId: referrer?.public_id ?? null };
  } catch (error) {
    const column = uniqueViolationColumn(error) ?? takenOnInsert(error);
    if (column === undefined) throw error;
    const winner = await findCustomerWithReferrerForUpdate(trx, ctx.program.id, buyerRef(input));
    if (winner) {
      const { referrer_public_id, ...buyer } = winner;
      return { buyer, referrerPublicId: referrer_public_id };
    }
    const field = `customer.${column === 'public_id' ? 'id' : column}`;
    throw fieldError(field, 'taken');
  }
}

/** The column of the buyer's field its insert found taken (a 422 on `id`, `key` or `email`). */
function takenOnInsert(error: unknown): string | undefined {
  if (!(error instanceof AppError) || error.code !== 'validation_failed') return undefined;
  if (error.problemOn('id')) return 'public_id';
  if (error.problemOn('key')) return 'key';
  if (error.problemOn('email')) return 'email';
  return undefined;
}

/** The program's settings (JSON text) and the buyer's figures, as a sale reads them. */
interface SaleReads {
  settings: string;
  bought: Pick<CounterFigures, 'get'>;
}

/** `SaleReads` by their own queries (SQLite, or a buyer this sale created). */
async function readForSale(trx: Kysely<DB>, programId: number, buyerId: number): Promise<SaleReads> {
  const [program, counters] = await Promise.all([
    readProgram(trx, programId),
    countersOfCustomers(trx, programId, buyerId, buyerId),
  ]);
  return { settings: program?.settings ?? '{}', bought: counters.get(buyerId) ?? CounterFigures.of([]) };
}

/** Figure rows (metric, low part, high part; one per slot) summed per metric. */
function figuresOf(rows: readonly [string, number, number][]) {
  return CounterFigures.of(rows.map(([metric, value, value_hi]) => ({ metric, value, value_hi })));
}

async function prepare(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  entry: SaleEntry<Customer>,
): Promise<ReferralPrepared> {
  const programId = ctx.program.id;
  const input = entry.customer;
  if (!input.id && !input.key && !input.email) throw fieldError('customer', 'required');
  // Locked until the sale's transaction ends (PostgreSQL): sales of one buyer wait for each
  // other, so `first_purchase` and `limit` hold.
  const found = await findCustomerWithReferrerForUpdate(trx, programId, buyerRef(input));
  let resolved: { buyer: CustomerRow; referrerPublicId: string | null; read?: SaleReads };
  if (found) {
    const { referrer_public_id, program_settings, figures, ...buyer } = found;
    resolved = {
      buyer,
      referrerPublicId: referrer_public_id,
      ...(program_settings !== undefined && figures !== undefined
        ? { read: { settings: program_settings, bought: figuresOf(figures) } }
        : {}),
    };
  } else {
    if (!booleanOf(entry.options?.create_customer, false)) throw fieldError('customer', 'invalid');
    resolved = await createBuyer(trx, ctx, input);
  }
  const { buyer } = resolved;
  if (buyer.referring_customer_id === null) {
    throw fieldError(
      'customer',
      'refused',
      'Transactions can be created for referred customers only; this customer was not referred.',
    );
  }
  return preparedOf(
    { ...buyer, referring_customer_id: buyer.referring_customer_id },
    resolved.referrerPublicId,
    resolved.read ?? (await readForSale(trx, programId, buyer.id)),
  );
}

/** What a referred buyer's purchase is decided on. */
function preparedOf(
  buyer: CustomerRow & { referring_customer_id: number },
  referrerPublicId: string | null,
  { settings, bought }: SaleReads,
): ReferralPrepared {
  const count = (metric: string) => Number(bought.get(metric) ?? 0);
  const programSettings = programSettingsOf('referral', settings);
  return {
    settings: rewardSettingsOf(programSettings),
    currency: String(programSettings.currency ?? 'USD'),
    buyer,
    referrerId: buyer.referring_customer_id,
    referrerPublicId,
    purchasesBefore: count(customerMetrics.purchases),
    rewardsBefore: {
      referrer: count(rewardCountMetric('referrer')),
      referred: count(rewardCountMetric('referred')),
    },
  };
}

/**
 * The sale writer's unlocked read (PostgreSQL): the buyer, unlocked, with its referrer's public id, the program's
 * settings, its figures and version in one statement; undefined when the buyer is unknown or
 * was not referred (the transaction path answers those).
 */
export async function readReferralUnlocked(
  db: Kysely<DB>,
  ctx: ProgramContext,
  entry: SaleEntry<Customer>,
): Promise<UnlockedRead<ReferralPrepared> | undefined> {
  const read = await repository.readReferralBuyerForSale(db, ctx.program.id, buyerRef(entry.customer));
  if (!read || read.referring_customer_id === null) return undefined;
  const { referrer_public_id, program_settings, figures, sale_id, reward_ids, subscribed, ...buyer } = read;
  return {
    prepared: preparedOf(
      { ...buyer, referring_customer_id: read.referring_customer_id },
      referrer_public_id,
      { settings: program_settings, bought: figuresOf(figures) },
    ),
    version: Number(buyer.sale_version),
    saleId: Number(sale_id),
    rewardIds: reward_ids.map(Number),
    subscribed,
  };
}

export const referralSales: SaleHandler<Customer, ReferralPrepared, CreatedReferralTransaction> = {
  prepare,
  salesBefore: (prepared) => prepared.purchasesBefore,
  buyerKey: (prepared) => prepared.buyer.key,
  decide: (prepared, sale) =>
    decideReferralSale(
      prepared.settings,
      {
        buyer: {
          id: prepared.buyer.id,
          referrerId: prepared.referrerId,
          purchasesBefore: prepared.purchasesBefore,
          rewardsBefore: prepared.rewardsBefore,
          selfReferral: Boolean(prepared.buyer.self_referral),
          heldBy: prepared.buyer.fraud_flag,
        },
        programCurrency: prepared.currency,
      },
      sale,
    ),
  created: (prepared, row, rewards) => {
    const publicIds = new Map<number, string | null>([
      [prepared.buyer.id, prepared.buyer.public_id],
      [prepared.referrerId, prepared.referrerPublicId],
    ]);
    const common = commonOf(row, rewards, (id) => (id === null ? null : (publicIds.get(id) ?? null)));
    return { ...common, partner: prepared.referrerPublicId, customer: prepared.buyer.public_id };
  },
};

/** Archive, revoke-archive and delete: the figures the sale moved, from its stored rows. */
async function applyEffects(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow, sign: 1 | -1) {
  const programId = ctx.program.id;
  const buyerId = row.customer_id;
  await lockCustomer(trx, programId, buyerId);
  const [rewards, counters] = await Promise.all([
    repository.listRewardsOf(trx, programId, [row.id]),
    countersOfCustomers(trx, programId, buyerId, buyerId),
  ]);
  const purchasesBefore = Number(counters.get(buyerId)?.get(customerMetrics.purchases) ?? 0);
  const sale = {
    buyerId,
    referrerId: row.referring_customer_id,
    // A refund already took its part back (core/sales.ts decideRefund).
    amountMicros: microsFrom(row.amount) - microsFrom(row.refunded_amount ?? 0),
    currency: row.amount_units,
    rewards: rewards.map(rewardFacts),
  };
  await applySaleFigures(
    trx,
    programId,
    row.created_at,
    referralSaleFigures(sale, sign === 1 ? 1n : -1n, purchasesBefore),
  );
}

/** The fields both wire shapes share, given the sale's rewards and a public-id lookup. */
function commonOf(
  row: TransactionRow,
  rewards: readonly RewardRow[],
  idOf: (id: number | null) => string | null,
) {
  const buyer = idOf(row.customer_id) ?? '';
  return {
    key: row.key,
    action: row.action,
    amount: microsToNumber(microsFrom(row.amount)),
    ...outcomeOnWire(
      row,
      row.deleted_at,
      rewards.map((reward) =>
        rewardOnWire(
          row,
          reward,
          // A reward a fraud flag holds is pending on the wire (stored `review_period`).
          {
            status: reward.status === 'review_period' ? 'pending' : reward.status,
            customer: idOf(reward.customer_id),
            deletedAt: reward.deleted_at,
          },
          { referred_customer: buyer },
        ),
      ),
    ),
  };
}

/** The pieces both wire shapes share, with public ids looked up in one query. */
async function wireParts(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]) {
  const ids = new Set<number>();
  for (const row of rows) {
    ids.add(row.customer_id);
    if (row.referring_customer_id !== null) ids.add(row.referring_customer_id);
  }
  const rewards = await repository.listRewardsOf(
    db,
    ctx.program.id,
    rows.map((row) => row.id),
  );
  for (const reward of rewards) if (reward.customer_id !== null) ids.add(reward.customer_id);
  const customers = await findCustomersByIds(db, ctx.program.id, [...ids]);
  const publicId = new Map(customers.map((c) => [c.id, c.public_id]));
  const idOf = (id: number | null) => (id === null ? null : (publicId.get(id) ?? null));
  return rows.map((row) => ({
    referrer: idOf(row.referring_customer_id),
    buyer: idOf(row.customer_id) ?? '',
    common: commonOf(
      row,
      rewards.filter((reward) => reward.transaction_id === row.id),
      idOf,
    ),
  }));
}

/** Lists, fetches, events: `customer` is the referrer, `referred_customer` the buyer. */
async function serialize(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]) {
  return (await wireParts(db, ctx, rows)).map((part) => ({
    ...part.common,
    customer: part.referrer,
    referred_customer: part.buyer,
  }));
}

/** The create response (and a replay of it): the referrer in `partner`, the buyer in `customer` (spec). */
async function serializeCreated(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]) {
  return (await wireParts(db, ctx, rows)).map((part) => ({
    ...part.common,
    partner: part.referrer,
    customer: part.buyer,
  }));
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** `key`, and `customer[id|key|email]` / `customer_key` naming the referrer (the list's `customer`). */
async function listFilter(db: Kysely<DB>, ctx: ProgramContext, query: Record<string, unknown>) {
  const customer = (query.customer ?? {}) as Record<string, unknown>;
  const ref = {
    id: text(customer.id),
    key: text(customer.key) ?? text(query.customer_key),
    email: text(customer.email),
  };
  const filter: repository.TransactionListFilter = {};
  const key = text(query.key);
  if (key !== undefined) filter.key = key;
  if (ref.id || ref.key || ref.email) {
    const row = await findCustomerByRef(db, ctx.program.id, ref);
    if (!row) return undefined;
    filter.referringCustomerId = row.id;
  }
  return filter;
}

/** `GET /v1/customers/{id}/transactions`: the sales it made and the sales of those it referred. */
async function listOfCustomer(
  db: Kysely<DB>,
  ctx: ProgramContext,
  customerId: number,
  window: { offset: number; fetch: number },
) {
  const rows = await repository.listTransactionsInvolving(db, ctx.program.id, customerId, window);
  return serialize(db, ctx, rows);
}

export const storedReferralSales: StoredSales<ReferralTransaction, CreatedReferralTransaction> = {
  serialize,
  serializeCreated,
  applyEffects,
  listOfCustomer,
  listFilter,
};
