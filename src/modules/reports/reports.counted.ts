import type { Kysely } from 'kysely';
import { bucketOf, type Interval } from '../../core/report-buckets.ts';
import type { RowFilters } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';
import {
  type ReportFigure,
  type ReportOwner,
  readReportDays,
} from '../counters/counters.reports.repository.ts';
import { type Metric, MONEY_METRICS, type MoneyMetric } from './reports.schemas.ts';

/** A count per bucket. */
export type Counts = Map<string, number>;
/** Micro-units per currency, then per bucket. */
export type Sums = Map<string, Map<string, bigint>>;
/** A report's figures: the counts of its count metrics, the sums of its money metrics. */
export type Figures = { counts: Map<Metric, Counts>; sums: Map<MoneyMetric, Sums> };

export const isMoneyMetric = (metric: Metric): metric is MoneyMetric =>
  (MONEY_METRICS as readonly string[]).includes(metric);

/** The metrics the per-day counters keep (ADR 0123), by their name in a report. */
const counted: Partial<Record<Metric, ReportFigure>> = {
  signups: 'signups',
  customers: 'customers',
  sales: 'sales',
  revenue: 'revenue',
  commissions: 'commissions',
  rewards: 'rewards',
};

export const isCounted = (metric: Metric): boolean => counted[metric] !== undefined;

/** The owner whose counters answer a filter: the program, or the one partner, link or referrer named. */
export function counterOwnerOf(programId: number, filters: RowFilters): ReportOwner | undefined {
  const named: ReportOwner[] = [];
  if (filters.partnerId !== undefined) named.push({ kind: 'partner', id: filters.partnerId });
  if (filters.linkId !== undefined) named.push({ kind: 'link', id: filters.linkId });
  if (filters.referrerId !== undefined) named.push({ kind: 'customer', id: filters.referrerId });
  if (named.length > 1) return undefined;
  return named[0] ?? { kind: 'program', id: programId };
}

/**
 * The counted `metrics` per bucket of the UTC days `[start, end]`, read from the per-day counters
 * in one statement: counts as `Counts`, money as `Sums` (only `currency` when given).
 */
export async function countedByBucket(
  db: Kysely<DB>,
  programId: number,
  owner: ReportOwner,
  metrics: readonly Metric[],
  range: { start: string; end: string; interval: Interval; currency: string | undefined },
): Promise<Figures> {
  const figures = new Map<ReportFigure, Metric>();
  for (const metric of metrics) {
    const figure = counted[metric];
    if (figure) figures.set(figure, metric);
  }
  // Counts and money apart, each in its own type; one map of both for the answer.
  const counts = new Map<ReportFigure, Counts>();
  const sums = new Map<ReportFigure, Sums>();
  for (const figure of figures.keys()) {
    if (isMoney(figure)) sums.set(figure, new Map());
    else counts.set(figure, new Map());
  }
  const days = await readReportDays(db, programId, owner, [...figures.keys()], range.start, range.end);
  for (const row of days) {
    const bucket = bucketOf(row.day, range.interval);
    const count = counts.get(row.metric);
    if (count) count.set(bucket, (count.get(bucket) ?? 0) + Number(row.value));
    const sum = sums.get(row.metric);
    if (!sum || (range.currency !== undefined && row.currency !== range.currency)) continue;
    const ofCurrency = sum.get(row.currency) ?? new Map<string, bigint>();
    ofCurrency.set(bucket, (ofCurrency.get(bucket) ?? 0n) + row.value);
    sum.set(row.currency, ofCurrency);
  }
  const answer: Figures = { counts: new Map(), sums: new Map() };
  for (const [figure, metric] of figures)
    if (isMoneyMetric(metric)) answer.sums.set(metric, sums.get(figure) ?? new Map());
    else answer.counts.set(metric, counts.get(figure) ?? new Map());
  return answer;
}

const isMoney = (figure: ReportFigure) => figure === 'revenue' || figure === 'commissions';

/** A ranking the counters answer: which owners, which figure (signups are every customer an owner brought). */
export function countedRanking(
  by: 'partner' | 'link' | 'referrer',
  metric: 'signups' | 'sales' | 'revenue' | 'commissions',
  currency: string | undefined,
) {
  return {
    kind: by === 'referrer' ? ('customer' as const) : by,
    metric: metric === 'signups' ? ('customers' as const) : metric,
    currency: currency ?? '',
  };
}
