import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { fieldError, validationError } from '../../core/errors.ts';
import { messages } from '../../core/messages.ts';
import { fromMicros, toMicros } from '../../core/money.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { programMetrics, revenueMetric } from '../../core/program-stats.ts';
import {
  balanceMetric,
  calculateRewards,
  type RewardRole,
  rewardCountMetric,
  rewardRoles,
  rewardSettingsOf,
} from '../../core/rewards.ts';
import { normalizeTimestamp, nowTimestamp } from '../../core/time.ts';
import { takenFieldError } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import { countersOfCustomers, findCustomerWithReferrer } from '../customers/customers.referral.repository.ts';
import {
  customerMetrics,
  insertReferralCustomer,
  resolveReferrer,
  toReferralCustomer,
} from '../customers/customers.referral.ts';
import { findCustomersByIds, lockCustomer } from '../customers/customers.repository.ts';
import { findCustomerByRef } from '../customers/customers.shared.ts';
import { readProgram, recordProgramActivity } from '../program/program.service.ts';
import * as repository from './transactions.repository.ts';
import {
  insertSale,
  outcomeOnWire,
  type RewardRow,
  rewardOnWire,
  type TransactionBehaviour,
  type TransactionEntry,
  type TransactionRow,
  toBool,
} from './transactions.shared.ts';

/**
 * Sales of refer-a-friend programs. Only referred customers buy through the program: each sale
 * can earn a reward for the referrer and one for the buyer (core/rewards.ts), and feeds the
 * referrer's figures, both balances and the program overview in the same transaction.
 */

type Customer = NonNullable<Awaited<ReturnType<typeof findCustomerByRef>>>;

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The buyer, with its referrer's public id (null when it was not referred). */
async function resolveBuyer(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  entry: TransactionEntry,
): Promise<{ buyer: Customer; referrerPublicId: string | null }> {
  const given = entry.customer ?? {};
  const ref = { id: text(given.id), key: text(given.key), email: text(given.email) };
  if (!ref.id && !ref.key && !ref.email) throw fieldError('customer', messages.required('customer'));
  const found = await findCustomerWithReferrer(trx, ctx.program.id, ref);
  if (found) {
    const { referrer_public_id, ...buyer } = found;
    return { buyer, referrerPublicId: referrer_public_id };
  }
  if (!toBool(entry.options?.create_customer, false))
    throw fieldError('customer', messages.invalid('customer'));
  const referrer = await resolveReferrer(
    trx,
    ctx,
    given.referring_customer as Record<string, unknown> | undefined,
    'customer.referring_customer',
  );
  const createdAt = text(given.created_at);
  let buyer: Customer;
  try {
    buyer = await insertReferralCustomer(trx, ctx, {
      id: ref.id,
      key: ref.key,
      email: ref.email,
      name: text(given.name),
      surname: text(given.surname),
      created_at: createdAt === undefined ? undefined : normalizeTimestamp(createdAt),
      referrer,
    });
  } catch (error) {
    throw takenFieldError(error, 'customer.');
  }
  const created = await toReferralCustomer(trx, ctx, buyer);
  await recordEvent(trx, ctx.program.id, 'customer.created', created, buyer.created_at);
  return { buyer, referrerPublicId: referrer?.public_id ?? null };
}

async function rewardSettingsOfProgram(db: Kysely<DB>, programId: number) {
  return rewardSettingsOf(
    programSettingsOf('referral', (await readProgram(db, programId))?.settings ?? '{}'),
  );
}

type RewardFacts = Pick<
  RewardRow,
  'role' | 'status' | 'customer_id' | 'amount' | 'amount_units' | 'is_currency'
>;

/**
 * What a just-recorded sale already knows, so that its create response needs no second read
 * (the shared flow serializes the row `record` returns, in the same transaction).
 */
const justRecorded = new WeakMap<
  TransactionRow,
  { rewards: RewardRow[]; buyer: Customer; referrerPublicId: string | null }
>();

async function record(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  entry: TransactionEntry,
  key: string,
  digest: string,
): Promise<TransactionRow> {
  const amount = Number(entry.amount);
  if (!Number.isFinite(amount)) throw validationError({ amount: [messages.numeric('amount')] });
  const { buyer, referrerPublicId } = await resolveBuyer(trx, ctx, entry);
  if (buyer.referring_customer_id === null) {
    throw fieldError(
      'customer',
      'Transactions can be created for referred customers only; this customer was not referred.',
    );
  }
  const programId = ctx.program.id;
  const referrerId = Number(buyer.referring_customer_id);
  if (ctx.database.dialect === 'postgres') {
    // Serializes sales of one buyer, so `first_purchase` and `limit` hold under concurrency.
    await lockCustomer(trx, programId, Number(buyer.id));
  }
  const [settings, counters] = await Promise.all([
    rewardSettingsOfProgram(trx, programId),
    countersOfCustomers(trx, programId, Number(buyer.id), Number(buyer.id)),
  ]);
  const bought = counters.get(Number(buyer.id)) ?? new Map<string, number>();
  const now = nowTimestamp(ctx.clock);
  const amountUnits = entry.amount_units?.toUpperCase() ?? null;
  const rewardable = toBool(entry.rewardable, true);
  const rewarded = toBool(entry.rewarded, false);
  const previousPurchases = bought.get(customerMetrics.purchases) ?? 0;
  const drafts = calculateRewards(settings, {
    amount: toMicros(amount),
    amountUnits,
    rewardable,
    rewarded,
    previousPurchases,
    previousRewards: Object.fromEntries(
      rewardRoles.map((role) => [role, bought.get(rewardCountMetric(role)) ?? 0]),
    ) as Record<RewardRole, number>,
  });
  const { row, rewards } = await insertSale(
    trx,
    programId,
    { entry, key, digest, now },
    {
      customer_id: buyer.id,
      partner_id: null,
      referring_customer_id: referrerId,
      amount: toMicros(amount),
      amount_units: amountUnits,
    },
    drafts.map((draft) => ({
      partner_id: null,
      customer_id: draft.role === 'referrer' ? referrerId : buyer.id,
      role: draft.role,
      status: draft.status,
      amount: draft.amount,
      amount_units: draft.amountUnits,
      is_currency: draft.isCurrency,
      commission_type: draft.commissionType,
      commission_value: String(draft.commissionValue),
      available_at: null,
    })),
  );
  await feed(trx, ctx, row, rewards, 1, previousPurchases + 1);
  justRecorded.set(row, { rewards, buyer, referrerPublicId });
  return row;
}

/**
 * Feeds (+1) or takes back (-1) everything one sale moved: the program overview, the referrer's
 * figures, the buyer's purchase and reward counts, and the balances of `ok` rewards. A balance may
 * go below zero when a sale whose reward was already credited is taken back: that is what is owed.
 * `purchasesAfter` is the buyer's purchase count once this change is applied.
 */
async function feed(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  row: TransactionRow,
  rewards: readonly RewardFacts[],
  sign: 1 | -1,
  purchasesAfter: number,
) {
  const programId = ctx.program.id;
  const amount = Number(row.amount);
  const buyerId = Number(row.customer_id);
  const revenue = row.amount_units ? revenueMetric(row.amount_units) : undefined;
  await recordProgramActivity(trx, programId, row.created_at, {
    [programMetrics.sales]: sign,
    ...(revenue ? { [revenue]: sign * amount } : {}),
  });
  const deltas: { customerId: number; metric: string; value: number }[] = [
    { customerId: buyerId, metric: customerMetrics.purchases, value: sign },
  ];
  for (const reward of rewards) {
    deltas.push({ customerId: buyerId, metric: rewardCountMetric(reward.role as RewardRole), value: sign });
    if (reward.status === 'ok' && reward.customer_id !== null) {
      deltas.push({
        customerId: Number(reward.customer_id),
        metric: balanceMetric(Boolean(reward.is_currency), reward.amount_units),
        value: sign * Number(reward.amount),
      });
    }
  }
  if (row.referring_customer_id !== null) {
    const referrerId = Number(row.referring_customer_id);
    // A referred customer becomes a paid account with its first purchase, and stops with its last.
    const paid = sign === 1 && purchasesAfter === 1 ? 1 : sign === -1 && purchasesAfter === 0 ? -1 : 0;
    deltas.push(
      { customerId: referrerId, metric: customerMetrics.salesCount, value: sign },
      { customerId: referrerId, metric: customerMetrics.paidAccounts, value: paid },
    );
    if (revenue) deltas.push({ customerId: referrerId, metric: revenue, value: sign * amount });
  }
  await addCounterDeltas(
    trx,
    programId,
    deltas.map((delta) => ({
      kind: 'customer' as const,
      id: delta.customerId,
      metric: delta.metric,
      value: delta.value,
    })),
  );
}

/** Archive, revoke-archive and delete (the shared flow): read what the sale earned, then feed. */
async function applyEffects(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow, sign: 1 | -1) {
  const programId = ctx.program.id;
  const buyerId = Number(row.customer_id);
  const [rewards, counters] = await Promise.all([
    repository.listRewardsOf(trx, programId, [row.id]),
    countersOfCustomers(trx, programId, buyerId, buyerId),
  ]);
  const purchases = counters.get(buyerId)?.get(customerMetrics.purchases) ?? 0;
  await feed(trx, ctx, row, rewards, sign, purchases + sign);
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
    amount: fromMicros(Number(row.amount)),
    ...outcomeOnWire(
      row,
      row.deleted_at,
      rewards.map((reward) =>
        rewardOnWire(
          row,
          reward,
          { status: reward.status, customer: idOf(reward.customer_id), deletedAt: reward.deleted_at },
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
    ids.add(Number(row.customer_id));
    if (row.referring_customer_id !== null) ids.add(Number(row.referring_customer_id));
  }
  const rewards = await repository.listRewardsOf(
    db,
    ctx.program.id,
    rows.map((row) => row.id),
  );
  for (const reward of rewards) if (reward.customer_id !== null) ids.add(Number(reward.customer_id));
  const customers = await findCustomersByIds(db, ctx.program.id, [...ids]);
  const publicId = new Map(customers.map((c) => [Number(c.id), c.public_id]));
  const idOf = (id: number | null) => (id === null ? null : (publicId.get(Number(id)) ?? null));
  return rows.map((row) => ({
    referrer: idOf(row.referring_customer_id),
    buyer: idOf(row.customer_id) ?? '',
    common: commonOf(
      row,
      rewards.filter((reward) => Number(reward.transaction_id) === Number(row.id)),
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

/** The create response: the referrer in `partner`, the buyer in `customer` (spec). */
async function serializeCreated(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]) {
  const known = rows.length === 1 && rows[0] ? justRecorded.get(rows[0]) : undefined;
  if (known && rows[0]) {
    const row = rows[0];
    const publicId = new Map<number, string | null>([
      [Number(known.buyer.id), known.buyer.public_id],
      [Number(row.referring_customer_id), known.referrerPublicId],
    ]);
    const common = commonOf(row, known.rewards, (id) =>
      id === null ? null : (publicId.get(Number(id)) ?? null),
    );
    return [{ ...common, partner: known.referrerPublicId, customer: known.buyer.public_id }];
  }
  return (await wireParts(db, ctx, rows)).map((part) => ({
    ...part.common,
    partner: part.referrer,
    customer: part.buyer,
  }));
}

/** `key`, and `customer[id|key|email]` / `customer_key` naming the referrer (the list's `customer`). */
async function listFilter(db: Kysely<DB>, ctx: ProgramContext, query: Record<string, unknown>) {
  const customer = (query.customer ?? {}) as Record<string, unknown>;
  const ref = {
    id: text(customer.id),
    key: text(customer.key) ?? text(query.customer_key),
    email: text(customer.email),
  };
  const filter: repository.TransactionListFilter = {};
  if (text(query.key) !== undefined) filter.key = text(query.key)!;
  if (ref.id || ref.key || ref.email) {
    const row = await findCustomerByRef(db, ctx.program.id, ref);
    if (!row) return undefined;
    filter.referringCustomerId = row.id;
  }
  return filter;
}

export const referralTransactions: TransactionBehaviour = {
  record,
  serialize,
  serializeCreated,
  applyEffects,
  listFilter,
};

/** `GET /v1/customers/{id}/transactions`: the sales it made and the sales of those it referred. */
export async function listReferralTransactions(
  db: Kysely<DB>,
  ctx: ProgramContext,
  customerId: number,
  window: { offset: number; fetch: number },
) {
  const rows = await repository.listTransactionsInvolving(db, ctx.program.id, customerId, window);
  return serialize(db, ctx, rows);
}
