import { type Kysely, sql } from 'kysely';
import { COUNTER_BASE, joinCounterParts } from '../../db/counter-parts.ts';
import type { ReportCounterMetric, ReportCounterOwner } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Reads of the per-day report figures (report_counters, ADR 0123), which the triggers of
 * migration 0034 keep in every write's own transaction. A figure is the sum of its slot rows;
 * days are UTC days.
 */
export type ReportOwner = { kind: ReportCounterOwner; id: number };

/** The figures the triggers keep, as stored in `metric`. */
export type ReportFigure = ReportCounterMetric;

export type ReportDay = { metric: ReportFigure; day: string; currency: string; value: bigint };

const base = sql.lit(COUNTER_BASE);

/** One owner's figures of `metrics` per UTC day of `[startDay, endDay]` (money per currency; '' for counts). */
export async function readReportDays(
  db: Kysely<DB>,
  programId: number,
  owner: ReportOwner,
  metrics: readonly ReportFigure[],
  startDay: string,
  endDay: string,
): Promise<ReportDay[]> {
  if (metrics.length === 0) return [];
  const rows = await db
    .selectFrom('report_counters')
    .select([
      'metric',
      'day',
      'currency',
      sql<string>`cast(sum(value) as bigint)`.as('lo'),
      sql<string>`cast(sum(value_hi) as bigint)`.as('hi'),
    ])
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id)
    .where('metric', 'in', [...metrics])
    .where('day', '>=', startDay)
    .where('day', '<=', endDay)
    .groupBy(['metric', 'day', 'currency'])
    .execute();
  return rows.map((row) => ({
    metric: row.metric,
    day: row.day,
    currency: row.currency,
    value: joinCounterParts(row.lo, row.hi),
  }));
}

export type RankedOwner = { owner_id: number; figure: bigint };

/**
 * The owners of one kind ranked by one figure summed over `[startDay, endDay]`, highest first,
 * ties by id; owners whose figure is zero are left out. Exact: the sum is ordered as its two
 * parts (`hi × 10^12 + lo`, `lo` in [0, 10^12)).
 */
export async function rankReportOwners(
  db: Kysely<DB>,
  programId: number,
  ranking: { kind: Exclude<ReportOwner['kind'], 'program'>; metric: ReportFigure; currency: string },
  startDay: string,
  endDay: string,
  limit: number,
): Promise<RankedOwner[]> {
  const ranked = db
    .selectFrom('report_counters')
    .select([
      'owner_id',
      sql<string>`cast(sum(value_hi) as bigint) + cast(sum(value) as bigint) / ${base}`.as('hi'),
      sql<string>`cast(sum(value) as bigint) % ${base}`.as('lo'),
    ])
    .where('program_id', '=', programId)
    .where('owner_kind', '=', ranking.kind)
    .where('metric', '=', ranking.metric)
    .where('currency', '=', ranking.currency)
    .where('day', '>=', startDay)
    .where('day', '<=', endDay)
    .groupBy('owner_id');
  const result = await sql<{ owner_id: number; hi: string; lo: string }>`
    select owner_id, hi, lo from (${ranked}) ranked where hi <> 0 or lo <> 0
    order by hi desc, lo desc, owner_id limit ${sql.lit(limit)}`.execute(db);
  return result.rows.map((row) => ({
    owner_id: Number(row.owner_id),
    figure: joinCounterParts(row.lo, row.hi),
  }));
}
