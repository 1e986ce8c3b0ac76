/** A payout as a payment file (PayPal, Wise, CSV), streamed page by page, safe to open in a spreadsheet. */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { csvField, csvRecord, spreadsheetText } from '../../core/csv.ts';
import { exportAmount } from '../../core/payouts.ts';
import type { DB } from '../../db/tables.ts';
import type { ExportItemRow, PayoutRow } from './payouts.repository.ts';
import * as repository from './payouts.repository.ts';
import { getRowOrThrow } from './payouts.wire.ts';

// ---------------------------------------------------------------------------------------------
// Exports: payment files, streamed a page of items at a time.

export type ExportFormat = 'paypal' | 'wise' | 'csv';

export interface Details {
  email?: string;
  iban?: string;
  account_holder?: string;
  account_number?: string;
  routing_number?: string;
  swift_bic?: string;
  bank_name?: string;
  note?: string;
}

export const NO_DETAILS: Details = {};

export function detailsOf(payoutDetails: string): Details {
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
const textField = spreadsheetText;

/** The full name a payout kept for an item's partner ('' for none). */
export function fullName(name: string | null, surname: string | null): string {
  return [name, surname].filter(Boolean).join(' ');
}

export type ReadExportItems<Row> = (
  db: Kysely<DB>,
  programId: number,
  payoutId: number,
  page: { after: number; limit: number },
) => Promise<Row[]>;

// Items a page: a page is written and sent while the next is read (a client reads the file as it
// comes), and the rows of a page are young garbage once written.
export const EXPORT_PAGE = 2000;

export interface ExportFile {
  header: string | null;
  /** The records of a payout's items, one string a page. */
  pages(db: Kysely<DB>, programId: number, payout: PayoutRow): AsyncGenerator<string>;
}

/** A format: which columns it reads, and how one item of a payout becomes a record. */
export function exportFile<Row extends readonly [id: number, ...unknown[]]>(
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
export const formats: Record<ExportFormat, ExportFile> = {
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
