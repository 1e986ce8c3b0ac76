import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { csvField, csvRecord } from '../../core/csv.ts';
import { AppError, fieldError } from '../../core/errors.ts';
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
import type { ExportItemRow, NamedPayoutItemRow, PayoutRow } from './payouts.repository.ts';
import * as repository from './payouts.repository.ts';
import type { CreatePayoutBody, ListPayoutsQuery } from './payouts.schemas.ts';

/**
 * Payout batches of affiliate programs: gather approved commissions (net of clawbacks) per
 * partner into a batch, mark it paid or cancel it, export it as a payment file. Which partners
 * a batch pays is decided by core/payouts.ts; what happens to the commissions, by the
 * commissions service.
 */

export function payoutNotFound(): AppError {
  return new AppError('not_found', 'Payout not found.');
}

function toPayoutEntry(row: PayoutRow) {
  return {
    id: row.public_id,
    status: row.status as 'pending' | 'paid' | 'cancelled',
    currency: row.currency,
    total: microsToNumber(microsFrom(row.total)),
    partner_count: Number(row.partner_count),
    created_at: row.created_at,
    paid_at: row.paid_at,
    cancelled_at: row.cancelled_at,
  };
}

/** Every item of a payout with its partner's names as they are now, a page of 5,000 at a time. */
async function* namedItemsOf(db: Kysely<DB>, programId: number, payoutId: number, limit = 5000) {
  let after = 0;
  for (;;) {
    const items = await repository.listNamedPayoutItems(db, programId, payoutId, { after, limit });
    if (items.length > 0) yield items;
    const last = items.at(-1);
    if (items.length < limit || last === undefined) return;
    after = Number(last.id);
  }
}

async function toPayout(db: Kysely<DB>, programId: number, row: PayoutRow) {
  const items: ReturnType<typeof toItem>[] = [];
  for await (const page of namedItemsOf(db, programId, Number(row.id)))
    for (const item of page) items.push(toItem(item));
  return { ...toPayoutEntry(row), items };
}

function toItem(item: NamedPayoutItemRow) {
  return {
    partner: item.partner_public_id ?? '',
    amount: microsToNumber(microsFrom(item.amount)),
    commission_count: Number(item.commission_count),
    payout_method: item.payout_method as 'paypal' | 'wise' | 'bank_transfer' | 'manual' | null,
  };
}

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

async function getRowOrThrow(db: Kysely<DB>, programId: number, id: string, lock = false) {
  const row = await repository.findPayoutByPublicId(db, programId, id, lock);
  if (!row) throw payoutNotFound();
  return row;
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

// ---------------------------------------------------------------------------------------------
// Exports: payment files, streamed a page of items at a time.

export type ExportFormat = 'paypal' | 'wise' | 'csv';

interface Details {
  email?: string;
  iban?: string;
  account_holder?: string;
  account_number?: string;
  routing_number?: string;
  swift_bic?: string;
  bank_name?: string;
  note?: string;
}

const NO_DETAILS: Details = {};

function detailsOf(payoutDetails: string): Details {
  // Most partners have no payout details: no parse for them.
  if (payoutDetails === '{}' || payoutDetails === '') return NO_DETAILS;
  try {
    const parsed: unknown = JSON.parse(payoutDetails);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Details) : NO_DETAILS;
  } catch {
    return NO_DETAILS;
  }
}

/** A field of text a partner typed, in the file meant for spreadsheets: never read as a formula. */
function textField(value: string): string {
  return csvField(FORMULA_START.test(value) ? `'${value}` : value);
}
const FORMULA_START = /^[=+\-@\t\r]/;

/** The full name a payout kept for an item's partner ('' for none). */
function fullName(name: string | null, surname: string | null): string {
  return [name, surname].filter(Boolean).join(' ');
}

type ReadExportItems<Row> = (
  db: Kysely<DB>,
  programId: number,
  payoutId: number,
  page: { after: number; limit: number },
) => Promise<Row[]>;

// Items a page: a page is written and sent while the next is read (a client reads the file as it
// comes), and the rows of a page are young garbage once written.
const EXPORT_PAGE = 2000;

interface ExportFile {
  header: string | null;
  /** The records of a payout's items, one string a page. */
  pages(db: Kysely<DB>, programId: number, payout: PayoutRow): AsyncGenerator<string>;
}

/** A format: which columns it reads, and how one item of a payout becomes a record. */
function exportFile<Row extends readonly [id: number, ...unknown[]]>(
  header: string | null,
  read: ReadExportItems<Row>,
  records: (payout: PayoutRow) => (item: Row) => string,
): ExportFile {
  return {
    header,
    async *pages(db, programId, payout) {
      const record = records(payout);
      let after = 0;
      for (;;) {
        const items = await read(db, programId, Number(payout.id), { after, limit: EXPORT_PAGE });
        let chunk = '';
        for (const item of items) chunk += record(item);
        if (chunk.length > 0) yield chunk;
        const last = items.at(-1);
        if (items.length < EXPORT_PAGE || last === undefined) return;
        after = Number(last[0]);
      }
    },
  };
}

/**
 * The records of each format, written by plain concatenation (each field quoted by
 * core/csv.ts when it needs it); what is the same on every record of a payout is written once.
 * PayPal Payouts takes rows without a header: recipient (e-mail), amount, currency, a reference
 * (at most 30 characters; the payout and partner ids), a note. Wise batch transfers take a
 * header row naming its columns. The payment services read their files as data, so their fields
 * go as they are; only the plain CSV, meant for a spreadsheet, keeps partner-typed text from
 * starting a formula.
 */
const formats: Record<ExportFormat, ExportFile> = {
  paypal: exportFile(null, repository.listPayPalExportItems, (payout) => {
    const currency = csvField(payout.currency);
    return ([id, amount, commissionCount, payoutDetails, email, partnerId]) =>
      `${csvField(detailsOf(payoutDetails).email ?? email ?? '')},${exportAmount(amount, payout.currency)},${currency},${csvField(
        `${payout.public_id}-${partnerId ?? id}`.slice(0, 30),
      )},Commissions (${commissionCount})\n`;
  }),
  wise: exportFile<ExportItemRow>(
    csvRecord([
      'name',
      'recipientEmail',
      'paymentReference',
      'receiverType',
      'amountCurrency',
      'amount',
      'sourceCurrency',
      'targetCurrency',
      'IBAN',
      'accountNumber',
      'sortCode',
      'BIC',
    ]),
    repository.listExportItems,
    (payout) => {
      const currency = csvField(payout.currency);
      const reference = csvField(`Payout ${payout.public_id}`.slice(0, 35));
      return ([, amount, , payoutDetails, email, , , name, surname]) => {
        const details = detailsOf(payoutDetails);
        const holder = details.account_holder ?? (fullName(name, surname) || email || '');
        return `${csvField(holder)},${csvField(details.email ?? email ?? '')},${reference},PRIVATE,target,${exportAmount(
          amount,
          payout.currency,
        )},${currency},${currency},${csvField(details.iban ?? '')},${csvField(
          details.account_number ?? '',
        )},${csvField(details.routing_number ?? '')},${csvField(details.swift_bic ?? '')}\n`;
      };
    },
  ),
  csv: exportFile<ExportItemRow>(
    csvRecord([
      'payout_id',
      'partner_id',
      'email',
      'name',
      'payout_method',
      'amount',
      'currency',
      'commission_count',
      'payout_email',
      'iban',
      'account_holder',
      'account_number',
      'routing_number',
      'swift_bic',
      'bank_name',
      'note',
    ]),
    repository.listExportItems,
    (payout) => {
      const payoutId = csvField(payout.public_id);
      const currency = csvField(payout.currency);
      return ([, amount, commissionCount, payoutDetails, email, partnerId, method, name, surname]) => {
        const details = detailsOf(payoutDetails);
        return `${payoutId},${csvField(partnerId ?? '')},${textField(email ?? '')},${textField(
          fullName(name, surname),
        )},${csvField(method ?? '')},${exportAmount(amount, payout.currency)},${currency},${commissionCount},${textField(
          details.email ?? '',
        )},${textField(details.iban ?? '')},${textField(details.account_holder ?? '')},${textField(
          details.account_number ?? '',
        )},${textField(details.routing_number ?? '')},${textField(details.swift_bic ?? '')},${textField(
          details.bank_name ?? '',
        )},${textField(details.note ?? '')}\n`;
      };
    },
  ),
};

/**
 * `GET /v1/payouts/{id}/export`: the payout as a payment file, streamed `EXPORT_PAGE` items at a
 * time (one compiled keyset-paged statement of the items alone per page, read as arrays of the
 * columns the format writes, with the partner names the payout kept), each page one chunk.
 * Amounts are rounded to the currency's minor unit here and only here (core/payouts.ts).
 */
export async function exportPayout(ctx: ProgramContext, id: string, format: ExportFormat) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const payout = await getRowOrThrow(db, programId, id);
  const file = formats[format];
  const pages = file.pages(db, programId, payout);
  let header = file.header ?? '';
  const stream = new Readable({
    // Pages are read ahead of a slow reader up to about this much.
    highWaterMark: 1 << 20,
    async read() {
      try {
        const next = await pages.next();
        const chunk = next.done ? header : header + next.value;
        header = '';
        if (chunk.length > 0) this.push(chunk);
        if (next.done) this.push(null);
      } catch (error) {
        this.destroy(error as Error);
      }
    },
  });
  return { filename: `payout-${payout.public_id}-${format}.csv`, stream };
}
