import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import {
  type CommissionSettings,
  computeCommissions,
  defaultCommissionSettings,
  partnerMetrics,
  type RewardStatus,
} from '../../core/commissions.ts';
import { fieldError } from '../../core/errors.ts';
import { messages } from '../../core/messages.ts';
import { fromMicros, toMicros } from '../../core/money.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { programMetrics, revenueMetric } from '../../core/program-stats.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import {
  addCounterDelta,
  addCounterDeltas,
  addToEntityCounters,
  type CounterDelta,
  readEntityCounters,
} from '../counters/counters.repository.ts';
import { insertAffiliateCustomer } from '../customers/customers.affiliate.records.ts';
import { findCustomersByIds } from '../customers/customers.repository.ts';
import { findCustomerByRef } from '../customers/customers.shared.ts';
import { findPartnerByRef } from '../partners/partners.lookup.ts';
import { findPartnerById, findPartnersByIds } from '../partners/partners.repository.ts';
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

/** Sales of affiliate programs: the customer's partner earns a commission (and its parent, tier two). */

interface AffiliateProgramSettings {
  currency: string;
  commissions: CommissionSettings;
}

/** The program's currency and commission settings, defaults filled in. */
export async function affiliateProgramSettings(
  db: Kysely<DB>,
  programId: number,
): Promise<AffiliateProgramSettings> {
  const row = await readProgram(db, programId);
  const settings = programSettingsOf('affiliate', row?.settings ?? '{}') as Record<string, unknown>;
  const commission = { ...defaultCommissionSettings.commission, ...(settings.commission as object) };
  return {
    currency: String(settings.currency ?? 'USD').toUpperCase(),
    commissions: {
      commission: { ...commission, duration_value: commission.duration_value ?? null },
      product_commissions: (settings.product_commissions as CommissionSettings['product_commissions']) ?? [],
      commission_hold_days: Number(settings.commission_hold_days ?? 0),
      tier2_commission: (settings.tier2_commission as CommissionSettings['tier2_commission']) ?? null,
    },
  };
}

type CustomerInput = {
  key?: string;
  email?: string;
  name?: string;
  surname?: string;
  created_at?: string;
  partner?: { id?: string; key?: string; email?: string };
};

async function resolveBuyer(trx: Kysely<DB>, ctx: ProgramContext, entry: TransactionEntry) {
  const input = (entry.customer ?? {}) as CustomerInput;
  if (input.key === undefined && input.email === undefined)
    throw fieldError('customer.key', messages.required('customer.key'));
  const existing =
    (input.key !== undefined
      ? await findCustomerByRef(trx, ctx.program.id, { key: input.key })
      : undefined) ??
    (input.email !== undefined && input.key === undefined
      ? await findCustomerByRef(trx, ctx.program.id, { email: input.email })
      : undefined);
  if (existing) return existing;
  if (!toBool(entry.options?.create_customer, false))
    throw fieldError('customer', messages.invalid('customer'));
  if (!input.partner || Object.keys(input.partner).length === 0)
    throw fieldError('customer.partner', messages.required('customer.partner'));
  return insertAffiliateCustomer(
    trx,
    ctx,
    {
      ...(input.key !== undefined ? { key: input.key } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.surname !== undefined ? { surname: input.surname } : {}),
      ...(input.created_at !== undefined ? { created_at: input.created_at } : {}),
      partner: input.partner,
    },
    'customer.',
  );
}

/** Sales of one customer so far (kept in its counters). */
async function customerSales(db: Kysely<DB>, programId: number, customerId: number): Promise<number> {
  const figures = await readEntityCounters(db, programId, { kind: 'customer', id: customerId });
  return figures.get(partnerMetrics.salesCount) ?? 0;
}

// The create response of a sale just recorded, built from what `record` already holds, so that
// serializing it costs no queries (the create flow serializes right after recording).
const justRecorded = new WeakMap<TransactionRow, unknown>();

async function record(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  entry: TransactionEntry,
  key: string,
  digest: string,
): Promise<TransactionRow> {
  const programId = ctx.program.id;
  const amount = Number(entry.amount);
  if (!Number.isFinite(amount)) throw fieldError('amount', messages.numeric('amount'));
  const buyer = await resolveBuyer(trx, ctx, entry);
  const settings = await affiliateProgramSettings(trx, programId);
  const currency = (entry.amount_units ?? settings.currency).toUpperCase();
  const partner =
    buyer.partner_id === null ? undefined : await findPartnerById(trx, programId, buyer.partner_id);
  const now = nowTimestamp(ctx.clock);
  const amountMicros = toMicros(amount);
  const previousSales = await customerSales(trx, programId, buyer.id);
  // An archived partner's links no longer attribute: its customers' sales earn nothing.
  const commissions =
    partner && partner.status !== 'archived'
      ? computeCommissions(settings.commissions, {
          amountMicros,
          productId: entry.product_id ?? null,
          productType: entry.product_type ?? null,
          rewardable: toBool(entry.rewardable, true),
          rewarded: toBool(entry.rewarded, false),
          at: now,
          customerSince: buyer.created_at,
          previousSales,
          hasParent: partner.referring_partner_id !== null,
        })
      : [];
  const { row, rewards } = await insertSale(
    trx,
    programId,
    { entry, key, digest, now },
    {
      customer_id: buyer.id,
      partner_id: partner?.id ?? null,
      referring_customer_id: null,
      amount: amountMicros,
      amount_units: currency,
    },
    commissions.map((commission) => ({
      partner_id: commission.role === 'tier2' ? partner!.referring_partner_id : partner!.id,
      customer_id: null,
      role: commission.role,
      status: commission.status,
      amount: commission.amountMicros,
      amount_units: currency,
      is_currency: true,
      commission_type: commission.type,
      commission_value: String(commission.value),
      available_at: commission.availableAt,
    })),
  );
  await feed(trx, ctx, row, rewards, 1);
  const partners = new Map<number, string>();
  if (partner) partners.set(partner.id, partner.public_id);
  const parentId = partner?.referring_partner_id;
  if (parentId && rewards.some((reward) => reward.partner_id === parentId)) {
    const parent = await findPartnerById(trx, programId, parentId);
    if (parent) partners.set(parent.id, parent.public_id);
  }
  justRecorded.set(row, toAffiliateTransaction(row, rewards, partners, buyer.key, now));
  return row;
}

/** Adds (or takes back) what a sale and its rewards count for, in the caller's transaction. */
async function feed(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  row: TransactionRow,
  rewards: readonly RewardRow[],
  sign: 1 | -1,
) {
  const programId = ctx.program.id;
  const currency = row.amount_units ?? 'USD';
  const amount = sign * Number(row.amount);
  // The customer's sale count after this change says, atomically, whether it just started or
  // stopped being a paying account (concurrent first sales on PostgreSQL count once).
  const salesAfter = await addCounterDelta(trx, programId, {
    kind: 'customer',
    id: row.customer_id,
    metric: partnerMetrics.salesCount,
    value: sign,
  });
  const becamePaying = sign === 1 && salesAfter === 1;
  const stoppedPaying = sign === -1 && salesAfter === 0;
  const deltas: CounterDelta[] = [];
  if (row.partner_id !== null) {
    const partner = { kind: 'partner', id: row.partner_id } as const;
    deltas.push(
      { ...partner, metric: partnerMetrics.salesCount, value: sign },
      { ...partner, metric: partnerMetrics.revenue(currency), value: amount },
      { ...partner, metric: partnerMetrics.paidAccounts, value: becamePaying ? 1 : stoppedPaying ? -1 : 0 },
    );
  }
  for (const reward of rewards) {
    if (reward.partner_id === null || reward.deleted_at !== null) continue;
    deltas.push({
      kind: 'partner',
      id: reward.partner_id,
      metric: partnerMetrics.commission(reward.status as RewardStatus, reward.amount_units),
      value: sign * Number(reward.amount),
    });
  }
  await addCounterDeltas(trx, programId, deltas);
  await recordProgramActivity(trx, programId, row.created_at, {
    [programMetrics.sales]: sign,
    [revenueMetric(currency)]: amount,
  });
}

async function applyEffects(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow, sign: 1 | -1) {
  await feed(trx, ctx, row, await repository.listRewardsOf(trx, ctx.program.id, [row.id]), sign);
}

/** A reward whose hold has passed shows as `ok` even before its partner's figures are settled. */
function shownStatus(reward: RewardRow, now: string): string {
  return reward.status === 'review_period' && reward.available_at !== null && reward.available_at <= now
    ? 'ok'
    : reward.status;
}

function toAffiliateTransaction(
  row: TransactionRow,
  rewards: readonly RewardRow[],
  partners: ReadonlyMap<number, string>,
  customer: string,
  now: string,
) {
  const deletedAt = row.archived_at ?? row.deleted_at;
  return {
    key: row.key,
    action: row.action,
    amount: fromMicros(Number(row.amount)),
    partner: row.partner_id === null ? null : (partners.get(row.partner_id) ?? null),
    customer,
    ...outcomeOnWire(
      row,
      deletedAt,
      rewards
        .filter((reward) => reward.transaction_id === row.id)
        .map((reward) =>
          rewardOnWire(
            row,
            reward,
            { status: shownStatus(reward, now), customer, deletedAt: reward.deleted_at ?? deletedAt },
            { partner: reward.partner_id === null ? null : (partners.get(reward.partner_id) ?? null) },
          ),
        ),
    ),
  };
}

async function serialize(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]) {
  const known = rows.length === 1 && rows[0] ? justRecorded.get(rows[0]) : undefined;
  if (known) return [known];
  const programId = ctx.program.id;
  const rewards = await repository.listRewardsOf(
    db,
    programId,
    rows.map((row) => row.id),
  );
  const partnerIds = new Set<number>();
  for (const row of rows) if (row.partner_id !== null) partnerIds.add(row.partner_id);
  for (const reward of rewards) if (reward.partner_id !== null) partnerIds.add(reward.partner_id);
  const partners = new Map(
    (await findPartnersByIds(db, programId, [...partnerIds])).map((p) => [p.id, p.public_id]),
  );
  const customers = new Map(
    (await findCustomersByIds(db, programId, [...new Set(rows.map((row) => row.customer_id))])).map((c) => [
      c.id,
      c.key,
    ]),
  );
  const now = nowTimestamp(ctx.clock);
  return rows.map((row) =>
    toAffiliateTransaction(row, rewards, partners, customers.get(row.customer_id) ?? '', now),
  );
}

type Ref = { id?: string; key?: string; email?: string };

async function listFilter(db: Kysely<DB>, ctx: ProgramContext, query: Record<string, unknown>) {
  const programId = ctx.program.id;
  const filter: repository.TransactionListFilter = {};
  if (typeof query.key === 'string') filter.key = query.key;
  const customerRef: Ref = { ...((query.customer as Ref | undefined) ?? {}) };
  if (typeof query.customer_key === 'string') customerRef.key = query.customer_key;
  if (Object.keys(customerRef).length > 0) {
    const customer = await findCustomerByRef(db, programId, customerRef);
    if (!customer) return undefined;
    filter.customerId = customer.id;
  }
  const partnerRef: Ref = { ...((query.partner as Ref | undefined) ?? {}) };
  if (typeof query.partner_key === 'string') partnerRef.key = query.partner_key;
  if (typeof query.partner_email === 'string') partnerRef.email = query.partner_email;
  if (Object.keys(partnerRef).length > 0) {
    const partner = await findPartnerByRef(db, programId, partnerRef);
    if (!partner) return undefined;
    filter.partnerId = partner.id;
  }
  return filter;
}

export const affiliateTransactions: TransactionBehaviour = { record, serialize, applyEffects, listFilter };

/** The transactions of one affiliate customer, newest first. */
export async function listAffiliateCustomerTransactions(
  db: Kysely<DB>,
  ctx: ProgramContext,
  customerId: number,
  window: { offset: number; fetch: number },
) {
  const rows = await repository.listTransactions(db, ctx.program.id, { customerId }, window, 'desc');
  return serialize(db, ctx, rows);
}

/**
 * Rewards of a partner whose hold has passed become `ok`, moving their amounts from pending to
 * not paid. Run when the partner's figures are read; answers whether anything moved.
 */
export async function settleDueCommissions(ctx: ProgramContext, partnerId: number): Promise<boolean> {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const due = (db: Kysely<DB>) => repository.listDueCommissions(db, programId, partnerId, now);
  if ((await due(ctx.database.db)).length === 0) return false;
  await ctx.database.db.transaction().execute(async (trx) => {
    const rows = await due(trx);
    if (rows.length === 0) return;
    await repository.setRewardsStatus(
      trx,
      programId,
      rows.map((r) => r.id),
      'ok',
    );
    const deltas: Record<string, number> = {};
    for (const row of rows) {
      if (row.archived_at !== null) continue;
      const pending = partnerMetrics.commission('review_period', row.amount_units);
      const notPaid = partnerMetrics.commission('ok', row.amount_units);
      deltas[pending] = (deltas[pending] ?? 0) - Number(row.amount);
      deltas[notPaid] = (deltas[notPaid] ?? 0) + Number(row.amount);
    }
    await addToEntityCounters(trx, programId, { kind: 'partner', id: partnerId }, deltas);
  });
  return true;
}
