import { microsToText } from './money.ts';

/**
 * One CSV record (RFC 4180): a field is quoted when it holds a comma, a double quote or a line
 * break, with its quotes doubled; records end with `\n`. Payment files are written with this
 * alone: a general CSV library cost ten times as much per row, and an export must stream at tens
 * of megabytes a second.
 */
export function csvRecord(fields: readonly string[]): string {
  let line = '';
  for (const [i, field] of fields.entries()) {
    if (i > 0) line += ',';
    line += csvField(field);
  }
  return `${line}\n`;
}

/** One field as a record writes it: quoted when it holds a comma, a quote or a line break. */
export function csvField(field: string): string {
  return NEEDS_QUOTES.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A field of text people typed, in a file meant for spreadsheets: never read as a formula (one
 * starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a `'` first), and quoted as
 * `csvField` quotes. Most text needs neither, which one test tells: an export writes a few such
 * fields per row, millions of rows.
 */
export function spreadsheetText(text: string): string {
  if (!NEEDS_CARE.test(text)) return text;
  return csvField(FORMULA_START.test(text) ? `'${text}` : text);
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_CARE = /^[=+\-@\t\r]|[",\r\n]/;

/**
 * Records gathered as UTF-8 bytes, one chunk per page of an export. Each record is written into
 * a working buffer as it is made, rather than appended to one string for the page: that string
 * was a rope of every record's pieces, kept alive until the stream encoded it, and flattening
 * and encoding it cost more per row than writing each record (ADR 0142). A page's chunk is a copy
 * of exactly its bytes, so the working buffer is reused and no allocation is larger than needed.
 */
export class CsvChunk {
  #buffer = Buffer.allocUnsafe(1 << 18);
  #length = 0;
  readonly #full: Buffer[] = [];

  add(record: string): void {
    // A UTF-8 byte count is at most three per UTF-16 unit.
    const most = record.length * 3;
    if (this.#length + most > this.#buffer.length) {
      this.#full.push(Buffer.from(this.#buffer.subarray(0, this.#length)));
      this.#length = 0;
      if (most > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(most);
    }
    this.#length += this.#buffer.write(record, this.#length);
  }

  /** How many bytes were gathered since the last take. */
  get size(): number {
    let size = this.#length;
    for (const full of this.#full) size += full.length;
    return size;
  }

  /** The bytes gathered since the last take, copied to the start of `target` (at least `size` long). */
  takeInto(target: Buffer): Buffer {
    let at = 0;
    for (const full of this.#full) at += full.copy(target, at);
    at += this.#buffer.copy(target, at, 0, this.#length);
    this.#full.length = 0;
    this.#length = 0;
    return target.subarray(0, at);
  }

  /** The bytes gathered since the last take (empty when none). */
  take(): Buffer {
    const last = Buffer.from(this.#buffer.subarray(0, this.#length));
    this.#length = 0;
    if (this.#full.length === 0) return last;
    const bytes = Buffer.concat([...this.#full, last]);
    this.#full.length = 0;
    return bytes;
  }
}

/**
 * How an export writes a stored value: `text` people typed (`spreadsheetText`), a `field` the
 * system made (an id, a status, a currency: quoted when needed), an `amount` in micro-units
 * (exact decimal text), or `as-is` (a timestamp, a count). Null is an empty field.
 */
export type CsvWrite = 'text' | 'field' | 'amount' | 'as-is';

/** One stored value as an export's field. */
export function csvValue(value: unknown, write: CsvWrite): string {
  if (value === null || value === undefined) return '';
  switch (write) {
    case 'text':
      return spreadsheetText(String(value));
    case 'field':
      return csvField(String(value));
    case 'amount':
      // Amounts are stored as integers of micro-units; anything else is not an amount column.
      if (typeof value !== 'number' && typeof value !== 'bigint')
        throw new TypeError(`an amount field holds ${typeof value}`);
      return microsToText(value);
    case 'as-is':
      return String(value);
  }
}
