import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { fieldError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { microsFrom, microsToNumber } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { approvedBy, exportAmount, payoutMinimumOf } from '../../core/payouts.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { type OutgoingEmail, queueEmails, recordEvent } from '../../outbox/outbox.ts';
import {
  claimPayableCommissions,
  commissionSettings,
  payCommissionsOfPayout,
  releaseCommissionsOfPayout,
  settleDueCommissions,
} from '../commissions/commissions.service.ts';
import {
  type DropPartnerFromPayouts,
  findPartnerByRef,
  getPartnerByPathOrThrow,
} from '../partners/partners.service.ts';
import { readProgram } from '../program/program.service.ts';
import type { PayoutRow } from './payouts.repository.ts';
import * as repository from './payouts.repository.ts';
import type { CreatePayoutBody, ListPayoutsQuery } from './payouts.schemas.ts';
import { getRowOrThrow, namedItemsOf, toPayout, toPayoutEntry } from './payouts.wire.ts';

/**
 * Payout batches of affiliate programs: gather approved commissions (net of clawbacks) per
 * partner into a batch, mark it paid or cancel it, export it as a payment file. Which partners
 * a batch pays is decided by core/payouts.ts; what happens to the commissions, by the
 * commissions service.
 */

/**
 * `POST /v1/payouts`: every partner whose approved, unpaid commissions (net of clawbacks) of the
 * currency reach the program's minimum gets an item. One payout is made at a time per program
 * (an advisory lock on PostgreSQL, the write lock on SQLite) and the commissions taken are
 * locked, so two calls never put one commission in two payouts.
 */
export async function createPayout(ctx: ProgramContext, body: CreatePayoutBody) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  await settleDueCommissions(ctx);
  const settings = await commissionSettings(db, programId);
  const currency = (body.currency ?? settings.currency).toUpperCase();
  let partnerId: number | undefined;
  if (body.partner !== undefined) {
    const partner =
      typeof body.partner === 'string'
        ? await getPartnerByPathOrThrow(db, programId, body.partner).catch(() => undefined)
        : await findPartnerByRef(db, programId, body.partner);
    if (!partner) throw fieldError('partner', 'invalid');
    partnerId = Number(partner.id);
  }
  const minimum = payoutMinimumOf(settings.payoutMinimum, currency);
  return db.transaction().execute(async (trx) => {
    await repository.lockProgramPayouts(trx, programId);
    const now = nowTimestamp(ctx.clock);
    // Set-based: the payout row first, then the commissions of the partners it pays claimed in
    // one update, its items summed from what was claimed in one INSERT … SELECT. A concurrent
    // deny or refund may have moved a row between the partners' sums and the claim (PostgreSQL):
    // a partner left under the minimum by it gets its commissions back.
    const payout = await repository.insertPayout(trx, {
      program_id: programId,
      public_id: newKey(),
      status: 'pending',
      currency,
      total: 0n,
      partner_count: 0,
      created_at: now,
      paid_at: null,
      cancelled_at: null,
    });
    const payoutId = Number(payout.id);
    const claimed = await claimPayableCommissions(trx, ctx, {
      payoutId,
      currency,
      ...(partnerId !== undefined ? { partnerId } : {}),
      approvedBy: approvedBy(now, settings.payoutTermsDays),
      minimumMicros: minimum,
    });
    if (claimed > 0) {
      await repository.insertItemsOfClaimedCommissions(trx, programId, payoutId);
      await releaseCommissionsOfPayout(
        trx,
        ctx,
        payoutId,
        repository.unpaidPartnersOf(trx, programId, payoutId, minimum),
      );
      await repository.deleteUnpaidItems(trx, programId, payoutId, minimum);
    }
    const { total, partners } = await repository.sumPayoutItems(trx, programId, payoutId);
    if (partners === 0)
      throw fieldError(
        'currency',
        'refused',
        `No partner has approved commissions in ${currency} that reach the payout minimum.`,
      );
    await repository.updatePayout(trx, programId, payoutId, { total, partner_count: partners });
    const data = await toPayout(trx, programId, { ...payout, total, partner_count: partners });
    await recordEvent(trx, programId, 'payout.created', data, now);
    return data;
  });
}

export async function getPayout(ctx: ProgramContext, id: string) {
  const db = ctx.database.db;
  return toPayout(db, ctx.program.id, await getRowOrThrow(db, ctx.program.id, id));
}

export async function listPayouts(ctx: ProgramContext, query: ListPayoutsQuery & PageRequest) {
  const filter = query.status !== undefined ? { status: query.status } : {};
  const rows = await repository.listPayouts(
    ctx.database.db,
    ctx.program.id,
    filter,
    pageWindow(query),
    query.sort,
  );
  return rows.map(toPayoutEntry);
}

/**
 * One partner's latest payouts, newest first: what each paid or will pay this partner (its item,
 * not the batch's total), for the partner portal.
 */
export async function listPartnerPayouts(ctx: ProgramContext, partnerId: number, limit: number) {
  const rows = await repository.listPayoutsOfPartner(ctx.database.db, ctx.program.id, partnerId, limit);
  return rows.map((row) => ({
    id: row.public_id,
    status: row.status as 'pending' | 'paid' | 'cancelled',
    currency: row.currency,
    amount: microsToNumber(microsFrom(row.amount)),
    created_at: row.created_at,
    paid_at: row.paid_at,
  }));
}

function refuseUnlessPending(row: PayoutRow, what: string) {
  if (row.status !== 'pending')
    throw fieldError('status', 'refused', `The payout is ${row.status} and cannot be ${what}.`);
}

/**
 * `POST /v1/payouts/{id}/mark-paid`: the commissions become paid, partner figures follow, and
 * each partner paid gets an e-mail. Marking a paid payout paid again changes nothing.
 */
export async function markPayoutPaid(ctx: ProgramContext, id: string) {
  const programId = ctx.program.id;
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, programId, id, true);
    if (row.status === 'paid') return toPayout(trx, programId, row);
    refuseUnlessPending(row, 'marked paid');
    const now = nowTimestamp(ctx.clock);
    await repository.updatePayout(trx, programId, Number(row.id), { status: 'paid', paid_at: now });
    await payCommissionsOfPayout(trx, ctx, Number(row.id));
    const data = await toPayout(trx, programId, { ...row, status: 'paid', paid_at: now });
    await recordEvent(trx, programId, 'payout.paid', data, now);
    await emailPartnersPaid(trx, ctx, row, now);
    return data;
  });
}

/**
 * The e-mail each partner of a paid payout gets (through the outbox), unless the program turned
 * partner notifications off (`partner_email_notifications_enabled`).
 */
async function emailPartnersPaid(trx: Kysely<DB>, ctx: ProgramContext, row: PayoutRow, now: string) {
  const programId = ctx.program.id;
  const program = await readProgram(trx, programId);
  if (program === undefined) return;
  if (programSettingsOf('affiliate', program.settings).partner_email_notifications_enabled === false) return;
  const name = program.name;
  const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  for await (const items of namedItemsOf(trx, programId, Number(row.id))) {
    const emails: OutgoingEmail[] = [];
    for (const item of items) {
      if (item.partner_email === null) continue;
      const amount = `${exportAmount(item.amount, row.currency)} ${row.currency}`;
      const greeting = `Hello ${item.partner_name ?? item.partner_email},`;
      emails.push({
        to: item.partner_email,
        subject: `${name}: your payout of ${amount} has been sent`,
        text: `${greeting}\n\n${name} has sent your payout of ${amount} (${item.commission_count} commissions).\n`,
        html: `<p>${html(greeting)}</p><p>${html(name)} has sent your payout of ${html(amount)} (${item.commission_count} commissions).</p>`,
      });
    }
    await queueEmails(trx, programId, emails, now);
  }
}

/**
 * A partner is being deleted (its commissions go with it): each payout not paid yet drops the
 * partner's item, and its total and partner count follow; a payout left empty is cancelled. Paid
 * and cancelled payouts keep the item without a partner (migration 0019): what was sent stays.
 */
export const dropPartnerFromPayouts: DropPartnerFromPayouts = async (trx, ctx, partnerId) => {
  const now = nowTimestamp(ctx.clock);
  for (const item of await repository.listPendingItemsOfPartner(trx, ctx.program.id, partnerId))
    await repository.removePendingItem(
      trx,
      ctx.program.id,
      { id: Number(item.id), payout_id: Number(item.payout_id), amount: microsFrom(item.amount) },
      now,
    );
};

/** `POST /v1/payouts/{id}/cancel`: its commissions go back to approved, for a later payout. */
export async function cancelPayout(ctx: ProgramContext, id: string) {
  const programId = ctx.program.id;
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, programId, id, true);
    if (row.status === 'cancelled') return toPayout(trx, programId, row);
    refuseUnlessPending(row, 'cancelled');
    const now = nowTimestamp(ctx.clock);
    await repository.updatePayout(trx, programId, Number(row.id), { status: 'cancelled', cancelled_at: now });
    await releaseCommissionsOfPayout(trx, ctx, Number(row.id));
    return toPayout(trx, programId, { ...row, status: 'cancelled', cancelled_at: now });
  });
}

export { type ExportFormat, exportPayout } from './payouts.export.ts';
export { payoutNotFound } from './payouts.wire.ts';
