import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Deps } from '../../context.ts';
import { shownCommissionStatus } from '../../core/commission-status.ts';
import { CsvChunk, csvField, csvRecord, csvValue } from '../../core/csv.ts';
import { fieldError } from '../../core/errors.ts';
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
import type { CsvColumn, CsvRows } from '../../db/export-csv.ts';
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
 * order, a keyset page at a time (read by the module that owns the rows), each page one chunk of
 * bytes. The next page is taken only when the destination can take more (backpressure), so
 * memory stays at a few pages whatever the file's size. Pages read on the server's thread wait a
 * turn of the event loop between them, so a long export on SQLite (a synchronous driver) never
 * holds other requests for more than one page; the sales export, each field a stored value, is
 * written where its pages are read: on a SQLite file, by two reader threads (db/export-csv.ts).
 */
export interface ExportProgram {
  id: number;
  publicId: string;
  type: ProgramType;
}

type Row = ExportRow;

/** A field of text people typed, in a file meant for spreadsheets: never read as a formula. */
const textField = (value: unknown) => csvValue(value, 'text');
const amount = (value: unknown) => csvValue(value, 'amount');

/**
 * The sales export's fields, one per header column: the buyer's key, the partner's public id
 * (its `partner_id` looked up, db/export-csv.ts), amounts exact.
 */
export const SALE_FIELDS = [
  { column: 'key', write: 'text' },
  { column: 'customer_key', write: 'text' },
  { column: 'partner_id', write: 'field' },
  { column: 'amount', write: 'amount' },
  { column: 'amount_units', write: 'field' },
  { column: 'refunded_amount', write: 'amount' },
  { column: 'product_id', write: 'text' },
  { column: 'created_at', write: 'as-is' },
] as const satisfies readonly CsvColumn<string>[];

type RecordContext = { now: string; autoApprove: boolean; status: string | undefined };

/** An export whose records are written here from rows read a page at a time. */
interface RowsFile {
  programTypes: readonly ProgramType[];
  header: readonly string[];
  record(row: Row, context: RecordContext): string;
  page(deps: Deps, program: ExportProgram, query: ExportQuery, range: ExportRange): Promise<ExportReader>;
}

/** An export of millions of rows, each field a stored value: written where its pages are read (db/export-csv.ts). */
interface ColumnsFile {
  programTypes: readonly ProgramType[];
  header: readonly string[];
  open(deps: Deps, program: ExportProgram, query: ExportQuery, range: ExportRange): Promise<CsvRows>;
}

type ExportFile = RowsFile | ColumnsFile;

function readerOf<Filter>(
  rows: ExportRows<Filter>,
  deps: Deps,
  program: ExportProgram,
  filter: Filter,
  range: ExportRange,
): ExportReader {
  return rows.open(deps.database.db, program.id, filter, range);
}

/** A row reader's pages as records, each page one chunk of bytes, a turn of the event loop between pages. */
function recordsOf(file: RowsFile, reader: ExportReader, context: RecordContext): CsvRows {
  return {
    async *pages() {
      const chunk = new CsvChunk();
      let after: ExportCursor | undefined;
      for (;;) {
        const page = await reader.read(after);
        let rows = 0;
        for (const item of page) {
          const record = file.record(item, context);
          if (record.length === 0) continue;
          rows++;
          chunk.add(record);
        }
        const bytes = chunk.take();
        if (bytes.length > 0) yield { bytes, rows };
        const last = page.at(-1);
        if (page.length < EXPORT_PAGE || !last) return;
        after = { createdAt: last.created_at, id: Number(last.id) };
        await nextTurn();
      }
    },
    count: () => reader.count(),
  };
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
    open: async (deps, program, query, range) => {
      const partnerId = await partnerIdOf(deps, program, query.partner);
      const customerId = await customerIdOf(deps, program, query.customer, 'customer');
      const filter = {
        ...(partnerId === undefined ? {} : { partnerId }),
        ...(customerId === undefined ? {} : { customerId }),
      };
      return transactionRows.open(deps.database, program.id, filter, range, SALE_FIELDS);
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

/** Whether `out` is still open once it can take more (after a `write` that answered `more`). */
async function fits(out: Writable, more: boolean): Promise<boolean> {
  if (!more && !out.destroyed)
    await new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
    });
  return !out.destroyed;
}

/**
 * An export as a file: its name and a way to write its text. Filters are checked before the first
 * byte, so a bad one is a 422 rather than a broken file.
 */
export async function exportCsv(deps: Deps, program: ExportProgram, name: ExportName, query: ExportQuery) {
  const file = files[name];
  const row = await readProgram(deps.database.db, program.id);
  const settings = programSettingsOf(program.type, row?.settings ?? '{}');
  const zone =
    typeof settings.timezone === 'string' && isTimeZone(settings.timezone) ? settings.timezone : 'UTC';
  const range = rangeOf(query, zone);
  const context = {
    now: nowTimestamp(deps.clock),
    autoApprove: settings.commission_auto_approve !== false,
    status: name === 'commissions' ? query.status : undefined,
  };
  const records =
    'open' in file
      ? await file.open(deps, program, query, range)
      : recordsOf(file, await file.page(deps, program, query, range), context);
  let rows = 0;
  const day = nowTimestamp(deps.clock).slice(0, 10);
  return {
    filename: `${name}-${program.publicId}-${day}.csv`,
    /**
     * Writes the file to `out`, a page at a time: the next page is taken only once `out` can
     * take more (backpressure), each page handed back to its reader once `out` has flushed it,
     * and writing stops when `out` closes (a client gone). `written` is told after each page.
     */
    async writeTo(out: Writable, written?: () => void): Promise<void> {
      if (!(await fits(out, out.write(csvRecord(file.header))))) return;
      for await (const page of records.pages()) {
        rows += page.rows;
        const more = out.write(page.bytes, () => page.release?.());
        written?.();
        if (!(await fits(out, more))) return;
      }
    },
    rowsWritten: () => rows,
    countRows: () => records.count(),
  };
}
