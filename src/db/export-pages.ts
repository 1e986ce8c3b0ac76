import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { createdAfter } from './creation-order.ts';
import type { DB } from './tables.ts';

/**
 * Keyset pages of the rows full exports write (issue 26): in creation order `(created_at, id)`,
 * each page after the last row of the one before, on the index every list has
 * (`program_id, created_at, id`), so a page costs the same at the start and at the millionth row.
 * Each module that owns a table exports its rows with `exportRows` (`<module>.reports.repository.ts`):
 * read-only, scoped by program id, each page read as the columns its file writes. An export of
 * millions of rows, each field a stored value, is a `csvTable` instead (db/export-csv.ts).
 */
export interface ExportCursor {
  createdAt: string;
  id: number;
}

export interface ExportRange {
  /** Stored-format prefixes: rows at or after `from` and before `until`. */
  from?: string;
  until?: string;
}

export const EXPORT_PAGE = 2000;

/** `created_at` within the range, after the cursor, in creation order, one page. */
function paged<D, TB extends keyof D, O>(
  query: SelectQueryBuilder<D, TB, O>,
  table: string,
  range: ExportRange,
  after: ExportCursor | undefined,
): SelectQueryBuilder<D, TB, O> {
  const createdAt = sql.ref(`${table}.created_at`);
  const id = sql.ref(`${table}.id`);
  let paging = query;
  if (range.from !== undefined) paging = paging.where(sql<boolean>`${createdAt} >= ${range.from}`);
  if (range.until !== undefined) paging = paging.where(sql<boolean>`${createdAt} < ${range.until}`);
  if (after) paging = paging.where(createdAfter(after, table));
  return paging.orderBy(createdAt).orderBy(id).limit(EXPORT_PAGE);
}

export type ExportRow = { id: number; created_at: string } & Record<string, unknown>;

/** The query of an export's columns and filters, whatever tables it joins. */
type Base<Filter, D, TB extends keyof D, O> = (
  db: Kysely<DB>,
  programId: number,
  filter: Filter,
) => SelectQueryBuilder<D, TB, O>;

/** One export's rows: its keyset pages in order, and how many rows its whole range has. */
export interface ExportReader<Row extends ExportRow = ExportRow> {
  read(after: ExportCursor | undefined): Promise<Row[]>;
  count(): Promise<number>;
}

/** The rows an export writes: a reader per export, which may keep what one page read for the next. */
export interface ExportRows<Filter, Row extends ExportRow = ExportRow> {
  open(db: Kysely<DB>, programId: number, filter: Filter, range: ExportRange): ExportReader<Row>;
}

/** How many rows of the query fall in the range. */
async function countIn<D, TB extends keyof D, O>(
  query: SelectQueryBuilder<D, TB, O>,
  table: string,
  range: ExportRange,
): Promise<number> {
  const all = paged(query, table, range, undefined)
    .clearSelect()
    .clearOrderBy()
    .clearLimit()
    .select(sql<number>`count(*)`.as('n'));
  const row = (await all.executeTakeFirst()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** The rows of `table` an export writes, from the query of its columns and filters. */
export function exportRows<Filter, D, TB extends keyof D, O extends ExportRow>(
  table: string,
  base: Base<Filter, D, TB, O>,
): ExportRows<Filter> {
  return {
    open: (db, programId, filter, range) => ({
      read: (after) => paged(base(db, programId, filter), table, range, after).execute(),
      count: () => countIn(base(db, programId, filter), table, range),
    }),
  };
}
