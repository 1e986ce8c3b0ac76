/** What sales do to commissions: events of a new sale's commissions, and a deleted sale's kept lines. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { newCommissionFigures } from '../../core/commission-status.ts';
import type { StoredRewardStatus } from '../../core/commissions.ts';
import { microsFrom } from '../../core/money.ts';
import type { FigureChange } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { type DomainEvent, recordEvent } from '../../outbox/outbox.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import type { CommissionRow } from './commissions.repository.ts';
import * as repository from './commissions.repository.ts';
import { type KnownNames, serializeCommissions } from './commissions.wire.ts';

/**
 * A sale is being deleted (its figures already taken back when it was counted): its unpaid
 * commissions stay as `voided` rows without a sale; paid ones, and ones in an unpaid payout, stay
 * as they are without a sale, and each partner gets one clawback line of their net amount, so
 * what it was paid for the sale comes back out of its next payout. Denied and voided rows go with
 * the sale.
 */
export async function keepCommissionsOfDeletedSale(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  transactionId: number,
) {
  const programId = ctx.program.id;
  const rows = await repository.listCommissionsOfSale(trx, programId, transactionId);
  if (rows.length === 0) return;
  const now = nowTimestamp(ctx.clock);
  const voided = rows.filter(
    (row) => (row.status === 'review_period' || row.status === 'ok') && row.payout_id === null,
  );
  const kept = rows.filter((row) => row.status === 'paid' || (row.status === 'ok' && row.payout_id !== null));
  await repository.setRewardsStatus(
    trx,
    programId,
    voided.map((row) => Number(row.id)),
    { status: 'voided', transaction_id: null, reason: 'Sale deleted', updated_at: now },
  );
  await repository.setRewardsStatus(
    trx,
    programId,
    kept.map((row) => Number(row.id)),
    { transaction_id: null, updated_at: now },
  );
  const figures: FigureChange[] = [];
  // Clawback lines stayed in the figures when the sale's were taken back: a voided one leaves them
  // now (the new clawback below covers what it covered), a kept one is already in them.
  for (const row of voided)
    if (row.role === 'clawback')
      figures.push(
        ...newCommissionFigures(Number(row.partner_id), 'ok', row.amount_units, -microsFrom(row.amount)),
      );
  const owed = new Map<string, { partnerId: number; units: string; micros: bigint }>();
  for (const row of kept) {
    const partnerId = Number(row.partner_id);
    const micros = microsFrom(row.amount);
    if (row.role !== 'clawback')
      figures.push(
        ...newCommissionFigures(partnerId, row.status as StoredRewardStatus, row.amount_units, micros),
      );
    const key = `${partnerId} ${row.amount_units}`;
    const line = owed.get(key) ?? { partnerId, units: row.amount_units, micros: 0n };
    line.micros += micros;
    owed.set(key, line);
  }
  const clawbacks: CommissionRow[] = [];
  for (const line of owed.values()) {
    if (line.micros === 0n) continue;
    clawbacks.push(
      await repository.insertCommission(trx, {
        program_id: programId,
        transaction_id: null,
        partner_id: line.partnerId,
        customer_id: null,
        role: 'clawback',
        status: 'ok',
        amount: -line.micros,
        amount_units: line.units,
        is_currency: true,
        credit: false,
        commission_type: 'clawback',
        commission_value: 'sale deleted',
        product_id: null,
        product_type: null,
        available_at: null,
        created_at: now,
        deleted_at: null,
        approved_at: now,
        reason: 'Sale deleted',
        updated_at: now,
      }),
    );
    figures.push(...newCommissionFigures(line.partnerId, 'ok', line.units, -line.micros));
  }
  await addCounterDeltas(trx, programId, figures);
  const voidedRows = voided.map((row) => ({
    ...row,
    status: 'voided',
    transaction_id: null,
    reason: 'Sale deleted',
    updated_at: now,
  }));
  for (const commission of await serializeCommissions(trx, ctx, voidedRows))
    await recordEvent(trx, programId, 'commission.voided', commission, now);
  for (const commission of await serializeCommissions(trx, ctx, clawbacks))
    await recordEvent(trx, programId, 'commission.created', commission, now);
}

/** A sale just written: one `commission.created` event per commission it earned (affiliate programs). */
export async function announceSaleCommissions(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  rows: readonly CommissionRow[],
  known?: KnownNames,
) {
  for (const event of await saleCommissionEvents(trx, ctx, rows, known))
    await recordEvent(trx, ctx.program.id, event.event, event.payload, event.createdAt);
}

/** The `commission.created` events of a new sale's commissions, to record with the sale's writes. */
export async function saleCommissionEvents(
  db: Kysely<DB>,
  ctx: ProgramContext,
  rows: readonly CommissionRow[],
  known?: KnownNames,
): Promise<DomainEvent[]> {
  if (ctx.program.type !== 'affiliate' || rows.length === 0) return [];
  // New commissions are not due yet (or approved already): the auto-approve setting cannot change
  // how they show, so it is not read.
  return (await serializeCommissions(db, ctx, rows, true, known)).map((commission) => ({
    event: 'commission.created',
    payload: commission,
    createdAt: commission.created_at,
  }));
}
