import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Deps } from '../../context.ts';
import { shownCommissionStatus } from '../../core/commission-status.ts';
import { CsvChunk, csvField, csvRecord, spreadsheetText } from '../../core/csv.ts';
import { fieldError } from '../../core/errors.ts';
import { microsToText } from '../../core/money.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import type { ProgramType } from '../../core/program-types.ts';
import {
  daysBetween,
  isCalendarDate,
  isTimeZone,
  isUtc,
  localMidnightUtc,
} from '../../core/report-buckets.ts';
import { addDays, nowTimestamp } from '../../core/time.ts';
import {
  EXPORT_PAGE,
  type ExportCursor,
  type ExportRange,
  type ExportReader,
  type ExportRow,
  type ExportRows,
} from '../../db/export-pages.ts';
import { commissionRows } from '../commissions/commissions.reports.service.ts';
import { customerRows } from '../customers/customers.reports.service.ts';
import { findCustomerByRef } from '../customers/customers.service.ts';
import { partnerRows } from '../partners/partners.reports.service.ts';
import { findPartnerByRef } from '../partners/partners.service.ts';
import { readProgram } from '../program/program.service.ts';
import { subscriberRows } from '../subscribers/subscribers.reports.service.ts';
import { transactionRows } from '../transactions/transactions.reports.service.ts';
import type { ExportName, ExportQuery } from './reports.exports.schemas.ts';

/**
 * Full exports as CSV files (issue 26): one header row, then every row of the list in creation
 * order, written a keyset page at a time (read by the module that owns the rows), each page one
 * chunk of bytes. The stream reads the next page only when the client has taken the last
 * (backpressure), so memory stays at about a page whatever the file's size, and it waits a turn
 * of the event loop between pages, so a long export on SQLite (a synchronous driver) never holds
 * other requests for more than one page.
 */
export interface ExportProgram {
  id: number;
  publicId: string;
  type: ProgramType;
}

type Row = ExportRow;

/** A field of text people typed, in a file meant for spreadsheets: never read as a formula. */
function textField(value: unknown): string {
  return value === null || value === undefined ? '' : spreadsheetText(String(value));
}

const amount = (value: unknown) =>
  value === null || value === undefined ? '' : microsToText(value as bigint);

interface ExportFile {
  programTypes: readonly ProgramType[];
  header: readonly string[];
  record(row: Row, context: RecordContext): string;
  page(deps: Deps, program: ExportProgram, query: ExportQuery, range: ExportRange): Promise<PageReader>;
}

type RecordContext = { now: string; autoApprove: boolean; status: string | undefined };

type PageReader = ExportReader;

function readerOf<Filter>(
  rows: ExportRows<Filter>,
  deps: Deps,
  program: ExportProgram,
  filter: Filter,
  range: ExportRange,
): PageReader {
  return rows.open(deps.database.db, program.id, filter, range);
}

/** The rows' filters resolved once: another program's partner or customer reads as missing. */
async function partnerIdOf(deps: Deps, program: ExportProgram, ref: string | undefined) {
  if (ref === undefined) return undefined;
  const db = deps.database.db;
  const partner =
    (await findPartnerByRef(db, program.id, { id: ref })) ??
    (await findPartnerByRef(db, program.id, { key: ref }));
  if (!partner) throw fieldError('partner', 'refused', 'The selected partner is invalid.');
  return Number(partner.id);
}

async function customerIdOf(deps: Deps, program: ExportProgram, ref: string | undefined, field: string) {
  if (ref === undefined) return undefined;
  const db = deps.database.db;
  const customer =
    (await findCustomerByRef(db, program.id, { id: ref })) ??
    (await findCustomerByRef(db, program.id, { key: ref }));
  if (!customer) throw fieldError(field, 'refused', `The selected ${field} is invalid.`);
  return Number(customer.id);
}

const files: Record<ExportName, ExportFile> = {
  partners: {
    programTypes: ['affiliate'],
    header: ['id', 'email', 'name', 'surname', 'status', 'key', 'created_at'],
    record: (row) =>
      `${csvField(String(row.public_id))},${textField(row.email)},${textField(row.name)},${textField(
        row.surname,
      )},${csvField(String(row.status))},${textField(row.key)},${row.created_at}\n`,
    page: async (deps, program, query, range) => {
      const filter = query.status === undefined ? {} : { status: query.status };
      return readerOf(partnerRows, deps, program, filter, range);
    },
  },
  customers: {
    programTypes: ['affiliate', 'referral'],
    header: ['id', 'key', 'email', 'name', 'surname', 'partner', 'referrer', 'created_at'],
    record: (row) =>
      `${csvField(String(row.public_id))},${textField(row.key)},${textField(row.email)},${textField(
        row.name,
      )},${textField(row.surname)},${csvField(String(row.partner ?? ''))},${csvField(String(row.referrer ?? ''))},${row.created_at}\n`,
    page: async (deps, program, query, range) => {
      const partnerId = await partnerIdOf(deps, program, query.partner);
      const referrerId = await customerIdOf(deps, program, query.referrer, 'referrer');
      const filter = {
        ...(partnerId === undefined ? {} : { partnerId }),
        ...(referrerId === undefined ? {} : { referrerId }),
      };
      return readerOf(customerRows, deps, program, filter, range);
    },
  },
  transactions: {
    programTypes: ['affiliate', 'referral'],
    header: [
      'key',
      'customer',
      'partner',
      'amount',
      'currency',
      'refunded_amount',
      'product_id',
      'created_at',
    ],
    record: (row) =>
      `${textField(row.key)},${textField(row.customer)},${csvField(String(row.partner ?? ''))},${amount(
        row.amount,
      )},${csvField(String(row.amount_units ?? ''))},${amount(row.refunded_amount)},${textField(row.product_id)},${row.created_at}\n`,
    page: async (deps, program, query, range) => {
      const partnerId = await partnerIdOf(deps, program, query.partner);
      const customerId = await customerIdOf(deps, program, query.customer, 'customer');
      const filter = {
        ...(partnerId === undefined ? {} : { partnerId }),
        ...(customerId === undefined ? {} : { customerId }),
      };
      return readerOf(transactionRows, deps, program, filter, range);
    },
  },
  commissions: {
    programTypes: ['affiliate'],
    header: ['id', 'partner', 'transaction', 'amount', 'currency', 'status', 'created_at'],
    record: (row, context) => {
      const status = shownCommissionStatus(
        { status: String(row.status), dueAt: (row.available_at as string | null) ?? null },
        context.now,
        context.autoApprove,
      );
      // The status a commission shows depends on the clock (a due one shows approved): filtered here.
      if (context.status !== undefined && status !== context.status) return '';
      return `${row.id},${csvField(String(row.partner))},${textField(row.sale)},${amount(row.amount)},${csvField(
        String(row.amount_units),
      )},${status},${row.created_at}\n`;
    },
    page: async (deps, program, query, range) => {
      const partnerId = await partnerIdOf(deps, program, query.partner);
      const filter = {
        ...(partnerId === undefined ? {} : { partnerId }),
        ...(query.currency === undefined ? {} : { currency: query.currency.toUpperCase() }),
      };
      return readerOf(commissionRows, deps, program, filter, range);
    },
  },
  subscribers: {
    programTypes: ['newsletter'],
    header: ['id', 'email', 'name', 'status', 'code', 'referred', 'referrals_count', 'created_at'],
    record: (row) =>
      `${csvField(String(row.public_id))},${textField(row.email)},${textField(row.name)},${csvField(
        String(row.status),
      )},${csvField(String(row.code))},${Boolean(row.is_referred)},${Number(row.referrals_count)},${row.created_at}\n`,
    page: async (deps, program, query, range) => {
      const filter = query.refer_status === undefined ? {} : { referred: query.refer_status === 'referred' };
      return readerOf(subscriberRows, deps, program, filter, range);
    },
  },
};

/** Whether a program of this type has this export (the routes declare the same). */
export const exportProgramTypes = (name: ExportName) => files[name].programTypes;

/** `start` and `end` (dates, inclusive, in the program time zone) as a range of stored timestamps. */
function rangeOf(query: ExportQuery, zone: string): ExportRange {
  for (const field of ['start', 'end'] as const) {
    const value = query[field];
    if (value !== undefined && !isCalendarDate(value))
      throw fieldError(field, 'refused', `The ${field} must be a date (YYYY-MM-DD).`);
  }
  if (query.start !== undefined && query.end !== undefined && daysBetween(query.start, query.end) < 0)
    throw fieldError('end', 'refused', 'The end must be a date on or after start.');
  const instant = (day: string) => (isUtc(zone) ? day : localMidnightUtc(zone, day));
  return {
    ...(query.start === undefined ? {} : { from: instant(query.start) }),
    ...(query.end === undefined ? {} : { until: instant(addDays(query.end, 1)) }),
  };
}

/**
 * An export as a file: its name and a stream of its text. Filters are checked before the first
 * byte, so a bad one is a 422 rather than a broken file.
 */
export async function exportCsv(deps: Deps, program: ExportProgram, name: ExportName, query: ExportQuery) {
  const file = files[name];
  const row = await readProgram(deps.database.db, program.id);
  const settings = programSettingsOf(program.type, row?.settings ?? '{}');
  const zone =
    typeof settings.timezone === 'string' && isTimeZone(settings.timezone) ? settings.timezone : 'UTC';
  const range = rangeOf(query, zone);
  const reader = await file.page(deps, program, query, range);
  const context = {
    now: nowTimestamp(deps.clock),
    autoApprove: settings.commission_auto_approve !== false,
    status: name === 'commissions' ? query.status : undefined,
  };
  let rows = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    const chunk = new CsvChunk();
    chunk.add(csvRecord(file.header));
    yield chunk.take();
    let after: ExportCursor | undefined;
    for (;;) {
      const page = await reader.read(after);
      for (const item of page) {
        const record = file.record(item, context);
        if (record.length === 0) continue;
        rows++;
        chunk.add(record);
      }
      const bytes = chunk.take();
      if (bytes.length > 0) yield bytes;
      const last = page.at(-1);
      if (page.length < EXPORT_PAGE || !last) return;
      after = { createdAt: last.created_at, id: Number(last.id) };
      await nextTurn();
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false, highWaterMark: 1 << 20 });
  const day = nowTimestamp(deps.clock).slice(0, 10);
  return {
    filename: `${name}-${program.publicId}-${day}.csv`,
    stream,
    rowsWritten: () => rows,
    countRows: () => reader.count(),
  };
}
