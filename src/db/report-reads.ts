import { type Expression, type Kysely, sql } from 'kysely';
import type { DB } from './tables.ts';

/**
 * The vocabulary of the read-only report queries (issue 26) that each module keeps beside the
 * tables it owns (`<module>.reports.repository.ts`). Figures are read from rows in a UTC window
 * grouped by a prefix of their stored timestamp (a day, an hour or a minute:
 * core/report-buckets.ts puts prefixes in local days). Every query is scoped by program id and
 * bounded by the window on an index ending in created_at.
 */
export interface RowFilters {
  partnerId?: number;
  linkId?: number;
  /** A refer-a-friend referrer (customers.id). */
  referrerId?: number;
}

export interface Window {
  from: string;
  until: string;
  /** Length of the timestamp prefix rows are grouped by: 10, 13 or 16. */
  prefix: number;
}

/** A ranking's range: stored timestamps `[from, until)` for rows, UTC days `[startDay, endDay]` for day rows. */
export interface RankWindow {
  from: string;
  until: string;
  startDay: string;
  endDay: string;
}

export type CountRow = { slice: string; n: number | bigint | string };
export type MoneyRow = { slice: string; currency: string; micros: number | bigint | string };

/** The prefix of a stored timestamp rows are grouped by. */
export const slice = (column: string, prefix: number) =>
  sql<string>`substr(${sql.ref(column)}, 1, ${sql.lit(prefix)})`;

export type OwnerColumn = 'partner' | 'link' | 'referrer';

export type Ranked = { owner_id: number; figure: number | bigint | string };

/** Who a ranked owner id is, as a ranking shows it. */
export type OwnerLabel = { owner_id: number; id: string; key: string | null; name: string | null };

/**
 * The top `limit` owners of a ranking (a query of `owner_id` and `figure` per owner), highest
 * first, ties by id; owners whose figure is zero are left out.
 */
export async function topRanked(
  db: Kysely<DB>,
  ranking: Expression<{ owner_id: number; figure: string }>,
  limit: number,
): Promise<Ranked[]> {
  const result =
    await sql<Ranked>`select owner_id, figure from (${ranking}) ranked where figure <> 0 order by figure desc, owner_id limit ${sql.lit(limit)}`.execute(
      db,
    );
  return result.rows;
}

/**
 * A row's program, compared without its indexes: for reads of rows named by id (a ranking's
 * labels), so the planner finds them by their keys. Without statistics SQLite walked a program's
 * every partner by its e-mail index instead (28 ms against 0.1 ms for 5 labels of 100,000).
 */
export const programScope = (column: string) => sql<number>`+${sql.ref(column)}`;
