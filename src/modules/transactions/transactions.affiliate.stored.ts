/** Stored affiliate sales: their wire form with commissions, list filters, and taking back their figures. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { microsFrom, microsToNumber } from '../../core/money.ts';
import { affiliateSaleFigures } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { readEntityCounters } from '../counters/counters.repository.ts';
import { findCustomerByRef, findCustomersByIds, lockCustomer } from '../customers/customers.service.ts';
import { findPartnerByRef, findPartnersByIds } from '../partners/partners.service.ts';
import type { AffiliateTransaction } from './transactions.affiliate.schemas.ts';
import { applySaleFigures } from './transactions.figures.ts';
import * as repository from './transactions.repository.ts';
import {
  outcomeOnWire,
  type RewardRow,
  rewardFacts,
  rewardOnWire,
  type StoredSales,
  type TransactionRow,
} from './transactions.shared.ts';

/** A reward whose hold has passed shows as `ok` even before its partner's figures are settled. */
export function shownStatus(reward: RewardRow, now: string): string {
  return reward.status === 'review_period' && reward.available_at !== null && reward.available_at <= now
    ? 'ok'
    : reward.status;
}

export function toAffiliateTransaction(
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
    amount: microsToNumber(microsFrom(row.amount)),
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

export async function serialize(db: Kysely<DB>, ctx: ProgramContext, rows: readonly TransactionRow[]) {
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

/** Archive, revoke-archive and delete: the figures the sale moved, from its stored rows. */
export async function applyEffects(trx: Kysely<DB>, ctx: ProgramContext, row: TransactionRow, sign: 1 | -1) {
  const programId = ctx.program.id;
  await lockCustomer(trx, programId, row.customer_id);
  const [rewards, figures] = await Promise.all([
    repository.listRewardsOf(trx, programId, [row.id]),
    readEntityCounters(trx, programId, { kind: 'customer', id: row.customer_id }),
  ]);
  const sale = {
    customerId: row.customer_id,
    partnerId: row.partner_id,
    // A refund already took its part back (core/sales.ts decideRefund).
    amountMicros: microsFrom(row.amount) - microsFrom(row.refunded_amount ?? 0),
    currency: row.amount_units ?? 'USD',
    // Clawback lines are owed whatever the sale's state (core/sales.ts decideRefund): archive,
    // revoke-archive and delete leave them in the figures.
    rewards: rewards
      .filter((reward) => reward.deleted_at === null && reward.role !== 'clawback')
      .map(rewardFacts),
  };
  const salesBefore = Number(figures.get(partnerMetrics.salesCount) ?? 0);
  await applySaleFigures(
    trx,
    programId,
    row.created_at,
    affiliateSaleFigures(sale, sign === 1 ? 1n : -1n, salesBefore),
  );
}

export type Ref = { id?: string; key?: string; email?: string };

export async function listFilter(db: Kysely<DB>, ctx: ProgramContext, query: Record<string, unknown>) {
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

/** The transactions of one affiliate customer, newest first. */
export async function listOfCustomer(
  db: Kysely<DB>,
  ctx: ProgramContext,
  customerId: number,
  window: { offset: number; fetch: number },
) {
  const rows = await repository.listTransactions(db, ctx.program.id, { customerId }, window, 'desc');
  return serialize(db, ctx, rows);
}

export const storedAffiliateSales: StoredSales<AffiliateTransaction, AffiliateTransaction> = {
  serialize,
  serializeCreated: serialize,
  applyEffects,
  listOfCustomer,
  listFilter,
};
