import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { createdAfter } from './creation-order.ts';
import type { DB } from './tables.ts';

/**
 * Keyset pages of the rows full exports write (issue 26): in creation order `(created_at, id)`,
 * each page after the last row of the one before, on the index every list has
 * (`program_id, created_at, id`), so a page costs the same at the start and at the millionth row.
 * Each module that owns a table exports its rows with `exportRows` (`<module>.reports.repository.ts`):
 * read-only, scoped by program id, each page read as the columns its file writes.
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
type Base<Filter, D, TB extends keyof D, O extends ExportRow> = (
  db: Kysely<DB>,
  programId: number,
  filter: Filter,
) => SelectQueryBuilder<D, TB, O>;

/** An export's rows: one keyset page after a cursor, and how many rows the whole range has. */
export interface ExportRows<Filter> {
  page(
    db: Kysely<DB>,
    programId: number,
    filter: Filter,
    range: ExportRange,
    after: ExportCursor | undefined,
  ): Promise<ExportRow[]>;
  count(db: Kysely<DB>, programId: number, filter: Filter, range: ExportRange): Promise<number>;
}

/** The rows of `table` an export writes, from the query of its columns and filters. */
export function exportRows<Filter, D, TB extends keyof D, O extends ExportRow>(
  table: string,
  base: Base<Filter, D, TB, O>,
): ExportRows<Filter> {
  return {
    page: (db, programId, filter, range, after) =>
      paged(base(db, programId, filter), table, range, after).execute(),
    count: async (db, programId, filter, range) => {
      const all = paged(base(db, programId, filter), table, range, undefined)
        .clearSelect()
        .clearOrderBy()
        .clearLimit()
        .select(sql<number>`count(*)`.as('n'));
      const row = (await all.executeTakeFirst()) as { n: number | string } | undefined;
      return Number(row?.n ?? 0);
    },
  };
}
