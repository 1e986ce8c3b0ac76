import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Deps, ProgramContext } from '../../context.ts';
import {
  type CommissionAction,
  commissionMoveFigures,
  commissionTier,
  moveCommission,
  newCommissionFigures,
  shownCommissionStatus,
  storedOfStatus,
} from '../../core/commission-status.ts';
import type { StoredRewardStatus } from '../../core/commissions.ts';
import { AppError, type FieldProblem, fieldError, problem, validationError } from '../../core/errors.ts';
import { amountOrThrow, microsFrom, microsToNumber } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import type { FigureChange } from '../../core/sales.ts';
import { rejectionReason } from '../../core/self-referral.ts';
import { nowTimestamp } from '../../core/time.ts';
import { inBatches, type SweepBounds, sweepBounds } from '../../db/in-batches.ts';
import { lockRows } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import { type DomainEvent, eventsAreStored, recordEvent, recordEvents } from '../../outbox/outbox.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import {
  findPartnerByRef,
  findPartnersByIds,
  getPartnerByPathOrThrow,
} from '../partners/partners.service.ts';
import { programsOfType, readProgram } from '../program/program.service.ts';
import type { CommissionRow, NamedCommissionRow } from './commissions.repository.ts';
import * as repository from './commissions.repository.ts';
import type {
  CreateCommissionBody,
  ListCommissionsQuery,
  ReviewCommissionsBody,
} from './commissions.schemas.ts';

/**
 * Affiliate commissions as a resource: review (approve, deny), manual commissions, and the status
 * moves the hold, refunds and payouts make. Every move is decided by core/commission-status.ts
 * and applied with its partner figures and events in one transaction.
 */

export type { CommissionRow };

/** The program settings commission review and payouts read, defaults filled in. */
export async function commissionSettings(db: Kysely<DB>, programId: number) {
  const row = await readProgram(db, programId);
  const settings = programSettingsOf('affiliate', row?.settings ?? '{}');
  return {
    currency: String(settings.currency ?? 'USD').toUpperCase(),
    autoApprove: settings.commission_auto_approve !== false,
    payoutMinimum: (settings.payout_minimum ?? {}) as Record<string, number | string>,
    payoutTermsDays: Number(settings.payout_terms_days ?? 0),
  };
}

/**
 * Commissions whose hold has passed become approved when the program approves them by itself:
 * of one partner (its figures are about to be read) or of the whole program (a list, a review or
 * a payout is about to read them). Answers whether anything moved.
 */
export async function settleDueCommissions(ctx: ProgramContext, partnerId?: number): Promise<boolean> {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const db = ctx.database.db;
  if (partnerId === undefined && !(await repository.hasDueCommissions(db, programId, now))) return false;
  if (
    partnerId !== undefined &&
    (await repository.listDueCommissions(db, programId, partnerId, now, 1)).length === 0
  )
    return false;
  const { autoApprove } = await commissionSettings(db, programId);
  if (!autoApprove) return false;
  await settleDueRows(ctx.database, programId, partnerId, now, 10_000);
  return true;
}

/**
 * The worker's step: due commissions of every affiliate program that approves by itself become
 * approved, `batch` rows a transaction (the write lock is held briefly) and at most `max` a pass,
 * so stored statuses catch up without anyone reading them. Answers how many moved.
 */
export async function settleDueCommissionsOfAllPrograms(
  deps: Deps,
  options: Partial<SweepBounds> = {},
): Promise<number> {
  const { batch, max } = sweepBounds(options);
  const db = deps.database.db;
  const now = nowTimestamp(deps.clock);
  let moved = 0;
  for await (const programs of programsOfType(db, 'affiliate')) {
    for (const program of programs) {
      if (programSettingsOf('affiliate', program.settings).commission_auto_approve === false) continue;
      const programId = Number(program.id);
      if (!(await repository.hasDueCommissions(db, programId, now))) continue;
      moved += await inBatches(
        async (limit) => {
          const step = await settleDueRows(deps.database, programId, undefined, now, limit);
          return { examined: step.examined, changed: step.moved };
        },
        { batch, max: max - moved },
      );
      if (moved >= max) return moved;
    }
  }
  return moved;
}

/** Settles up to `limit` due rows in one transaction: how many were read, and how many moved. */
async function settleDueRows(
  database: Deps['database'],
  programId: number,
  partnerId: number | undefined,
  now: string,
  limit: number,
) {
  return database.db.transaction().execute(async (trx) => {
    const rows = await repository.listDueCommissions(trx, programId, partnerId, now, limit);
    if (rows.length === 0) return { examined: 0, moved: 0 };
    await lockCommissions(
      trx,
      programId,
      rows.map((r) => r.id),
    );
    // Another request may have settled some meanwhile: move only those still pending.
    const still = new Set(
      (
        await repository.findCommissionsByIds(
          trx,
          programId,
          rows.map((r) => r.id),
        )
      )
        .filter((row) => row.status === 'review_period')
        .map((row) => row.id),
    );
    const moving = rows.filter((row) => still.has(row.id));
    await repository.setRewardsStatus(
      trx,
      programId,
      moving.map((r) => r.id),
      { status: 'ok', approved_at: now, updated_at: now },
    );
    await addCounterDeltas(
      trx,
      programId,
      commissionMoveFigures(
        moving
          .filter((row) => row.partner_id !== null)
          .map((row) => ({
            partnerId: Number(row.partner_id),
            units: row.amount_units,
            amountMicros: microsFrom(row.amount),
            from: 'review_period',
            to: 'ok',
            counted: row.archived_at === null,
          })),
      ),
    );
    return { examined: rows.length, moved: moving.length };
  });
}

/** Holds the commissions' rows until the transaction ends (a no-op on SQLite's single writer). */
async function lockCommissions(trx: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return;
  await lockRows(
    trx,
    trx
      .selectFrom('rewards')
      .select('id')
      .where('program_id', '=', programId)
      .where('id', 'in', [...ids])
      .orderBy('id'),
  );
}

/** Whether any row's shown status depends on the auto-approve setting (due, still in review). */
type StatusColumns = Pick<CommissionRow, 'status' | 'available_at'>;

function dependsOnAutoApprove(rows: readonly StatusColumns[], now: string): boolean {
  return rows.some(
    (row) => row.status === 'review_period' && row.available_at !== null && row.available_at <= now,
  );
}

/** The auto-approve setting, read only when a row's shown status depends on it. */
async function autoApproveFor(
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
function commissionOnWire(row: NamedCommissionRow, now: string, autoApprove: boolean) {
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

function commissionNotFound(): AppError {
  return new AppError('not_found', 'Commission not found.');
}

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
    status: shownCommissionStatus({ status: row.status, dueAt: row.available_at }, now, auto),
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

/** One commission on the wire (`serializeCommissions` answers one per row). */
async function serializeCommission(
  db: Kysely<DB>,
  ctx: ProgramContext,
  row: CommissionRow,
  autoApprove?: boolean,
) {
  const [data] = await serializeCommissions(db, ctx, [row], autoApprove);
  if (data === undefined) throw new Error('a commission row serialized to nothing');
  return data;
}

const reviewEvent = { approve: 'commission.approved', deny: 'commission.denied' } as const;

/**
 * `POST /v1/commissions/approve` and `/deny`: every id moves, or none does. Each id that cannot
 * move (unknown, another program's, or in a status the move does not leave) is named in the 422
 * as `ids.N`.
 */
export async function reviewCommissions(
  ctx: ProgramContext,
  action: 'approve' | 'deny',
  body: ReviewCommissionsBody,
) {
  const programId = ctx.program.id;
  const seen = new Set<number>();
  const duplicates: FieldProblem[] = [];
  body.ids.forEach((id, index) => {
    if (seen.has(id)) duplicates.push(problem(`ids.${index}`, 'distinct'));
    seen.add(id);
  });
  if (duplicates.length > 0) throw validationError(duplicates);
  await settleDueCommissions(ctx);
  const { autoApprove } = await commissionSettings(ctx.database.db, programId);
  return ctx.database.db.transaction().execute(async (trx) => {
    await lockCommissions(trx, programId, body.ids);
    const now = nowTimestamp(ctx.clock);
    const rows = new Map(
      (await repository.findCommissionsByIds(trx, programId, body.ids)).map((row) => [Number(row.id), row]),
    );
    const sales = new Map(
      (
        await repository.findSaleKeys(
          trx,
          programId,
          [...rows.values()].flatMap((r) => (r.transaction_id === null ? [] : [Number(r.transaction_id)])),
        )
      ).map((s) => [Number(s.id), s]),
    );
    const errors: FieldProblem[] = [];
    const moves: { row: CommissionRow; to: StoredRewardStatus; changed: boolean }[] = [];
    body.ids.forEach((id, index) => {
      const row = rows.get(id);
      const field = `ids.${index}`;
      if (!row) {
        errors.push(problem(field, 'invalid'));
        return;
      }
      const move = moveCommission(
        { status: row.status, dueAt: row.available_at, inPayout: row.payout_id !== null },
        action satisfies CommissionAction,
        { now, autoApprove },
      );
      if (!move.ok) errors.push(problem(field, 'commissionMove', id, move.state, move.verb));
      else moves.push({ row, to: move.to, changed: move.changed });
    });
    if (errors.length > 0) throw validationError(errors);
    const changed = moves.filter((m) => m.changed);
    const values =
      action === 'approve'
        ? { status: 'ok', approved_at: now, updated_at: now }
        : { status: 'denied', reason: body.reason ?? null, updated_at: now };
    await repository.setRewardsStatus(
      trx,
      programId,
      changed.map((m) => Number(m.row.id)),
      values,
    );
    await addCounterDeltas(
      trx,
      programId,
      commissionMoveFigures(
        changed.map((m) => ({
          partnerId: Number(m.row.partner_id),
          units: m.row.amount_units,
          amountMicros: microsFrom(m.row.amount),
          from: m.row.status,
          to: m.to,
          counted: isCounted(m.row, sales),
        })),
      ),
    );
    const after = await repository.findCommissionsByIds(trx, programId, body.ids);
    const byId = new Map(after.map((row) => [Number(row.id), row]));
    const data = await serializeCommissions(
      trx,
      ctx,
      // Every id was found and moved above, in this transaction.
      body.ids.flatMap((id) => byId.get(id) ?? []),
      autoApprove,
    );
    const changedIds = new Set(changed.map((m) => Number(m.row.id)));
    for (const commission of data)
      if (changedIds.has(commission.id))
        await recordEvent(trx, programId, reviewEvent[action], commission, now);
    return data;
  });
}

/** Rewards of an archived sale are in no figure while it is archived; clawback lines always are. */
function isCounted(row: CommissionRow, sales: ReadonlyMap<number, { archived_at: string | null }>): boolean {
  if (row.transaction_id === null || row.role === 'clawback') return true;
  return sales.get(Number(row.transaction_id))?.archived_at == null;
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

/** Applies figure changes of commission moves in the caller's transaction (payouts, refunds). */
export async function applyCommissionFigures(trx: Kysely<DB>, programId: number, figures: FigureChange[]) {
  await addCounterDeltas(trx, programId, figures);
}

// ---------------------------------------------------------------------------------------------
// What payouts do to commissions (the payouts module calls these inside its transactions).

/**
 * Puts every approved, unpaid commission and clawback a payout may take now into payout
 * `payoutId` (one set-based update; see the repository). Answers how many it took.
 */
export async function claimPayableCommissions(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  claim: {
    payoutId: number;
    currency: string;
    partnerId?: number;
    approvedBy: string;
    minimumMicros: bigint;
  },
) {
  return repository.claimPayableCommissions(trx, ctx.program.id, { ...claim, now: nowTimestamp(ctx.clock) });
}

/**
 * Takes commissions back out of a payout, free for the next one: all of them (a cancelled payout)
 * or those of the partners a query names (partners the payout does not pay after all).
 */
export async function releaseCommissionsOfPayout(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  payoutId: number,
  // biome-ignore lint/suspicious/noExplicitAny: a one-column select of partner ids.
  partnerIds?: SelectQueryBuilder<DB, any, { partner_id: number | null }>,
) {
  await repository.releasePayoutCommissions(
    trx,
    ctx.program.id,
    payoutId,
    nowTimestamp(ctx.clock),
    partnerIds,
  );
}

/**
 * A payout marked paid: its commissions (and clawbacks) become paid, their amounts move to the
 * partners' paid figures, one `commission.paid` event each while events are stored (outbox.ts).
 * Set-based: one update, one sum per partner and currency for the figures, and the events read
 * and written a thousand at a time.
 */
export async function payCommissionsOfPayout(trx: Kysely<DB>, ctx: ProgramContext, payoutId: number) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const paid = await repository.payCommissionsOfPayout(trx, programId, payoutId, now);
  if (paid.length === 0) return;
  const sums = await repository.sumPaidCommissionsOfPayout(trx, programId, payoutId);
  await addCounterDeltas(
    trx,
    programId,
    commissionMoveFigures(
      sums.map((sum) => ({
        partnerId: Number(sum.partner_id),
        units: sum.amount_units,
        amountMicros: microsFrom(sum.amount),
        from: 'ok',
        to: 'paid',
        counted: Number(sum.counted) === 1,
      })),
    ),
  );
  // One `commission.paid` each, read back a thousand at a time: only when events are stored.
  if (!(await eventsAreStored(trx, programId))) return;
  const ids = paid.map((row) => Number(row.id)).sort((a, b) => a - b);
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await repository.listNamedCommissionsByIds(trx, programId, ids.slice(i, i + 1000));
    await recordEvents(
      trx,
      programId,
      'commission.paid',
      rows.map((row) => commissionOnWire(row, now, true)),
      now,
    );
  }
}

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

/**
 * What the writer of a sale already knows of the commissions it earned: the public ids of their
 * partners and the sale's (and its buyer's) key. Given, the events need no lookups.
 */
export interface KnownNames {
  partners: ReadonlyMap<number, string>;
  sales: ReadonlyMap<number, { key: string; customer_key: string | null }>;
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
