import { CsvChunk, type CsvWrite, csvValue } from '../core/csv.ts';
import { type NamesById, namesById } from './names-by-id.ts';
import { bindTemplate, type StatementTemplate } from './statement-template.ts';

/**
 * One page of a CSV export, from its rows to its bytes: the part of db/export-csv.ts that runs
 * where the page is read, on the server's thread or on a reader thread (db/export-threads.ts).
 * Free of Kysely, so a reader thread loads little: statements come compiled, as templates
 * (db/statement-template.ts).
 */

/** Runs a statement, its rows as arrays of the selected columns. */
export type RunRows = (sql: string, parameters: readonly unknown[]) => Promise<unknown[][]> | unknown[][];

/** A row's place in creation order: `(created_at, id)`. */
export type RowKey = readonly [createdAt: string, id: number];

/**
 * A field of the file: the value at `at` in a page's row (after `id` and `created_at`), written as
 * `write`; with `named`, the value is an id written as the name that look-up gives it.
 */
export interface PageColumn {
  at: number;
  write: CsvWrite;
  named?: number;
}

/** What reads one export's pages: its statements and its fields. */
export interface PagePlan {
  /** The most rows of a page with no end (`page.first`, `page.after`). */
  pageSize: number;
  /** Values every statement binds by name (the export's dates). */
  bound: Readonly<Record<string, unknown>>;
  /** Rows after `loAt, loId` (when `lo` is set) up to `hiAt, hiId` inclusive (when `hi` is set). */
  page: {
    first: StatementTemplate;
    after: StatementTemplate;
    firstUntil: StatementTemplate;
    between: StatementTemplate;
  };
  /** The key of the row `skip` rows after `loAt, loId` (or the first's): where a page ends. */
  span: { first: StatementTemplate; after: StatementTemplate };
  /** Each look-up of names by id: `id, name` of the ids in the JSON array (or list) `ids`. */
  names: readonly StatementTemplate[];
  columns: readonly PageColumn[];
}

/** The page statement for a page after `lo` (or from the start) and up to `hi` (or to the end). */
export function pageStatement(plan: PagePlan, lo: RowKey | undefined, hi: RowKey | undefined) {
  const template = lo
    ? hi
      ? plan.page.between
      : plan.page.after
    : hi
      ? plan.page.firstUntil
      : plan.page.first;
  return { template, params: { ...plan.bound, ...keyParams('lo', lo), ...keyParams('hi', hi) } };
}

export function keyParams(prefix: 'lo' | 'hi', key: RowKey | undefined): Record<string, unknown> {
  return key ? { [`${prefix}At`]: key[0], [`${prefix}Id`]: key[1] } : {};
}

/** The names caches of one export, one per look-up, kept from page to page. */
export function namesOfExport(
  plan: PagePlan,
  run: RunRows,
  idsValue: (ids: readonly number[]) => unknown,
): NamesById[] {
  return plan.names.map((template) =>
    namesById(async (ids) => {
      const rows = await run(template.sql, bindTemplate(template, { ids: idsValue(ids) }));
      return rows.map((row) => [Number(row[0]), String(row[1])] as const);
    }),
  );
}

/** A page's rows as CSV records (its names looked up first): how many rows it wrote. */
export async function writePage(
  rows: readonly (readonly unknown[])[],
  plan: PagePlan,
  names: readonly NamesById[],
  chunk: CsvChunk,
): Promise<number> {
  const named = await Promise.all(
    names.map((lookUp, index) => {
      const column = plan.columns.find((field) => field.named === index);
      return column ? lookUp.namesOf(rows.map((row) => idOrNull(row[column.at]))) : [];
    }),
  );
  const { columns } = plan;
  // One array of fields, joined: a record built by `+=` was a rope of its pieces, flattened again
  // when written.
  const fields: string[] = new Array(columns.length);
  const last = columns.length - 1;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] ?? [];
    let c = 0;
    for (const column of columns) {
      const value = column.named === undefined ? row[column.at] : named[column.named]?.[r];
      fields[c] = c === last ? `${csvValue(value, column.write)}\n` : csvValue(value, column.write);
      c++;
    }
    chunk.add(fields.join(','));
  }
  return rows.length;
}

const idOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export { CsvChunk };
