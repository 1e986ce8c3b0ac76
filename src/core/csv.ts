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
