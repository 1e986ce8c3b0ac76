/** What the wire shows of commission rows: status as shown, names of partner, sale, buyer and payout. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { commissionTier, shownCommissionStatus } from '../../core/commission-status.ts';
import { AppError } from '../../core/errors.ts';
import { microsToNumber } from '../../core/money.ts';
import { rejectionReason } from '../../core/self-referral.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { findPartnersByIds } from '../partners/partners.service.ts';
import type { CommissionRow, NamedCommissionRow } from './commissions.repository.ts';
import * as repository from './commissions.repository.ts';
import { commissionSettings } from './commissions.settings.ts';

/** Whether any row's shown status depends on the auto-approve setting (due, still in review). */
export type StatusColumns = Pick<CommissionRow, 'status' | 'available_at'>;

export function dependsOnAutoApprove(rows: readonly StatusColumns[], now: string): boolean {
  return rows.some(
    (row) => row.status === 'review_period' && row.available_at !== null && row.available_at <= now,
  );
}

/** The auto-approve setting, read only when a row's shown status depends on it. */
export async function autoApproveFor(
  db: Kysely<DB>,
  programId: number,
  rows: readonly StatusColumns[],
  now: string,
  given?: boolean,
) {
  if (given !== undefined) return given;
  if (!dependsOnAutoApprove(rows, now)) return true;
  return (await commissionSettings(db, programId)).autoApprove;
}

/** What the wire shows of a commission row whose public names were read with it. */
export function commissionOnWire(row: NamedCommissionRow, now: string, autoApprove: boolean) {
  const status = shownCommissionStatus({ status: row.status, dueAt: row.available_at }, now, autoApprove);
  const approvedAt =
    row.approved_at ??
    (status === 'approved' || status === 'paid' ? (row.available_at ?? row.created_at) : null);
  return {
    id: Number(row.id),
    partner: row.partner_public_id ?? '',
    transaction: row.transaction_key,
    customer: row.customer_key,
    tier: commissionTier(row.role),
    kind: row.role === 'manual' || row.role === 'clawback' ? row.role : 'sale',
    amount: microsToNumber(row.amount),
    currency: row.amount_units,
    status,
    due_at: row.available_at ?? row.created_at,
    approved_at: approvedAt,
    paid_at: row.paid_at,
    payout: row.payout_public_id,
    reason: row.reason ?? rejectionReason(row.status) ?? null,
    fraud_flag: row.fraud_flag,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at ?? row.created_at,
  };
}

/** What the wire shows of a set of commission rows: partner ids, sale and buyer keys, payout ids. */
export async function serializeCommissions(
  db: Kysely<DB>,
  ctx: ProgramContext,
  rows: readonly CommissionRow[],
  autoApprove?: boolean,
  known?: KnownNames,
) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const unique = <T>(values: (T | null)[]) => [...new Set(values.filter((v): v is T => v !== null))];
  const [auto, partners, sales, payouts] = await Promise.all([
    autoApproveFor(db, programId, rows, now, autoApprove),
    known
      ? []
      : findPartnersByIds(
          db,
          programId,
          unique(rows.map((r) => (r.partner_id === null ? null : Number(r.partner_id)))),
        ),
    known
      ? []
      : repository.findSaleKeys(
          db,
          programId,
          unique(rows.map((r) => (r.transaction_id === null ? null : Number(r.transaction_id)))),
        ),
    repository.findPayoutIds(
      db,
      programId,
      unique(rows.map((r) => (r.payout_id === null ? null : Number(r.payout_id)))),
    ),
  ]);
  const partnerIds = known?.partners ?? new Map(partners.map((p) => [Number(p.id), p.public_id]));
  const saleKeys: ReadonlyMap<number, { key: string; customer_key: string | null }> =
    known?.sales ?? new Map(sales.map((s) => [Number(s.id), s]));
  const payoutIds = new Map(payouts.map((p) => [Number(p.id), p.public_id]));
  return rows.map((row) => {
    const sale = row.transaction_id === null ? undefined : saleKeys.get(Number(row.transaction_id));
    return commissionOnWire(
      {
        ...row,
        partner_public_id: partnerIds.get(Number(row.partner_id)) ?? null,
        transaction_key: sale?.key ?? null,
        customer_key: sale?.customer_key ?? null,
        payout_public_id: row.payout_id === null ? null : (payoutIds.get(Number(row.payout_id)) ?? null),
      },
      now,
      auto,
    );
  });
}

export type CommissionOnWire = Awaited<ReturnType<typeof serializeCommissions>>[number];

export function commissionNotFound(): AppError {
  return new AppError('not_found', 'Commission not found.');
}

/** One commission on the wire (`serializeCommissions` answers one per row). */
export async function serializeCommission(
  db: Kysely<DB>,
  ctx: ProgramContext,
  row: CommissionRow,
  autoApprove?: boolean,
) {
  const [data] = await serializeCommissions(db, ctx, [row], autoApprove);
  if (data === undefined) throw new Error('a commission row serialized to nothing');
  return data;
}

/**
 * What the writer of a sale already knows of the commissions it earned: the public ids of their
 * partners and the sale's (and its buyer's) key. Given, the events need no lookups.
 */
export interface KnownNames {
  partners: ReadonlyMap<number, string>;
  sales: ReadonlyMap<number, { key: string; customer_key: string | null }>;
}
