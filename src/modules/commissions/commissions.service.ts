import type { ProgramContext } from '../../context.ts';
import { newCommissionFigures, shownCommissionStatus, storedOfStatus } from '../../core/commission-status.ts';
import { fieldError } from '../../core/errors.ts';
import { amountOrThrow, microsFrom, microsToNumber } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { nowTimestamp } from '../../core/time.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import { findPartnerByRef, getPartnerByPathOrThrow } from '../partners/partners.service.ts';
import type { CommissionRow } from './commissions.repository.ts';
import * as repository from './commissions.repository.ts';
import type { CreateCommissionBody, ListCommissionsQuery } from './commissions.schemas.ts';
import { commissionSettings } from './commissions.settings.ts';
import {
  autoApproveFor,
  commissionNotFound,
  commissionOnWire,
  serializeCommission,
} from './commissions.wire.ts';

/**
 * Affiliate commissions as a resource: review (approve, deny), manual commissions, and the status
 * moves the hold, refunds and payouts make. Every move is decided by core/commission-status.ts
 * and applied with its partner figures and events in one transaction.
 */

export type { CommissionRow };

/** The end of a `created_to` day, or the timestamp as given. */
function upperBound(value: string): string {
  return value.length === 10 ? `${value}T23:59:59.999999Z` : value;
}

function lowerBound(value: string): string {
  return value.length === 10 ? `${value}T00:00:00.000000Z` : value;
}

/**
 * `GET /v1/commissions`: newest first; filters by partner, status, sale, currency and creation
 * time. Nothing is settled here: a due commission shows (and filters) as approved when the
 * program approves by itself, whether or not its row was settled yet, so a read is exact without
 * writing (the worker and the writes settle rows).
 */
export async function listCommissions(ctx: ProgramContext, query: ListCommissionsQuery & PageRequest) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const filter: repository.CommissionListFilter = {};
  if (query.partner !== undefined) {
    const partner =
      typeof query.partner === 'string'
        ? await getPartnerByPathOrThrow(db, programId, query.partner).catch(() => undefined)
        : await findPartnerByRef(db, programId, query.partner);
    if (!partner) return [];
    filter.partnerId = Number(partner.id);
  }
  let autoApprove: boolean | undefined;
  if (query.status !== undefined) {
    const split = query.status === 'pending' || query.status === 'approved';
    if (split) autoApprove = (await commissionSettings(db, programId)).autoApprove;
    filter.status = {
      stored: storedOfStatus[query.status],
      ...(autoApprove !== undefined ? { dueSplit: { now, autoApprove } } : {}),
    };
  }
  if (query.transaction !== undefined) {
    const sale = await repository.findSaleByKey(db, programId, query.transaction);
    if (!sale) return [];
    filter.transactionId = Number(sale.id);
  }
  if (query.currency !== undefined) filter.currency = query.currency.toUpperCase();
  if (query.created_from !== undefined) filter.createdFrom = lowerBound(query.created_from);
  if (query.created_to !== undefined) filter.createdTo = upperBound(query.created_to);
  const rows = await repository.listCommissions(db, programId, filter, pageWindow(query), query.sort);
  const auto = await autoApproveFor(db, programId, rows, now, autoApprove);
  return rows.map((row) => commissionOnWire(row, now, auto));
}

/**
 * A partner's newest commissions for the partner portal: id, kind, amount, currency, the status
 * the API shows and the creation time, from one indexed read of those columns (the list's
 * joined names are not needed there).
 */
export async function listLatestCommissionsOfPartner(ctx: ProgramContext, partnerId: number, limit: number) {
  const db = ctx.database.db;
  const now = nowTimestamp(ctx.clock);
  const rows = await repository.listLatestCommissionsOfPartner(db, ctx.program.id, partnerId, limit);
  const auto = await autoApproveFor(db, ctx.program.id, rows, now);
  return rows.map((row) => ({
    id: Number(row.id),
    kind: row.role === 'manual' || row.role === 'clawback' ? row.role : ('sale' as const),
    amount: microsToNumber(microsFrom(row.amount)),
    currency: row.amount_units,
    // A partner sees a held commission as in review, never the flag or its evidence.
    status:
      row.fraud_flag !== null && row.status === 'review_period'
        ? ('in_review' as const)
        : shownCommissionStatus({ status: row.status, dueAt: row.available_at }, now, auto),
    created_at: row.created_at,
  }));
}

/** A path id: commission ids are integers; anything else names no commission. */
function commissionIdOf(segment: string): number | undefined {
  return /^[1-9]\d{0,15}$/.test(segment) ? Number(segment) : undefined;
}

export async function getCommission(ctx: ProgramContext, segment: string) {
  const id = commissionIdOf(segment);
  if (id === undefined) throw commissionNotFound();
  const db = ctx.database.db;
  const [row] = await repository.findCommissionsByIds(db, ctx.program.id, [id]);
  if (!row) throw commissionNotFound();
  return serializeCommission(db, ctx, row);
}

/** `POST /v1/commissions`: a manual commission (a bonus or a correction), approved at once. */
export async function createCommission(ctx: ProgramContext, body: CreateCommissionBody) {
  const programId = ctx.program.id;
  const db = ctx.database.db;
  const amountMicros = amountOrThrow(body.amount, 'amount', { allowNegative: true });
  if (amountMicros === 0n) throw fieldError('amount', 'invalid');
  const partner =
    typeof body.partner === 'string'
      ? await getPartnerByPathOrThrow(db, programId, body.partner).catch(() => undefined)
      : await findPartnerByRef(db, programId, body.partner);
  if (!partner) throw fieldError('partner', 'invalid');
  const settings = await commissionSettings(db, programId);
  const currency = (body.currency ?? settings.currency).toUpperCase();
  return db.transaction().execute(async (trx) => {
    const now = nowTimestamp(ctx.clock);
    const row = await repository.insertCommission(trx, {
      program_id: programId,
      transaction_id: null,
      partner_id: Number(partner.id),
      customer_id: null,
      role: 'manual',
      status: 'ok',
      amount: amountMicros,
      amount_units: currency,
      is_currency: true,
      credit: false,
      commission_type: 'fixed',
      commission_value: String(microsToNumber(amountMicros)),
      product_id: null,
      product_type: null,
      available_at: null,
      created_at: now,
      deleted_at: null,
      approved_at: now,
      description: body.description,
      updated_at: now,
    });
    await addCounterDeltas(
      trx,
      programId,
      newCommissionFigures(Number(partner.id), 'ok', currency, amountMicros),
    );
    const data = await serializeCommission(trx, ctx, row, settings.autoApprove);
    await recordEvent(trx, programId, 'commission.created', data, now);
    return data;
  });
}

// What other modules use of commissions: settling, review, the wire form, and the moves that
// payouts and sales make (each in its own file, listed here as the module's service).

export { clearFraudFlag, confirmFraudFlag } from './commissions.fraud.ts';
export {
  applyCommissionFigures,
  claimPayableCommissions,
  payCommissionsOfPayout,
  releaseCommissionsOfPayout,
} from './commissions.payment.ts';
export { reviewCommissions } from './commissions.review.ts';
export {
  announceSaleCommissions,
  keepCommissionsOfDeletedSale,
  saleCommissionEvents,
} from './commissions.sales.ts';
export { commissionSettings } from './commissions.settings.ts';
export { settleDueCommissions, settleDueCommissionsOfAllPrograms } from './commissions.settle.ts';
export { type CommissionOnWire, type KnownNames, serializeCommissions } from './commissions.wire.ts';
