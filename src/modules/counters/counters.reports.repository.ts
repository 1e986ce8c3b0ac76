import { type Kysely, sql } from 'kysely';
import { COUNTER_BASE, joinCounterParts } from '../../db/counter-parts.ts';
import { isPostgres } from '../../db/counter-slots.ts';
import type { ReportCounterMetric, ReportCounterOwner, ReportTotalsTable } from '../../db/domain-tables.ts';
import { definePreparedListQuery, definePreparedQuery } from '../../db/prepared.ts';
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

type DayParams = {
  programId: number;
  kind: ReportOwner['kind'];
  ownerId: number;
  startDay: string;
  endDay: string;
};

/** One day's figure as the statement lists it: metric, day, currency and the sum's two parts. */
type DayTuple = [metric: ReportFigure, day: string, currency: string, lo: number, hi: number];
/** The day rows as SQLite answers them (JSON text) or as PostgreSQL's driver parsed them. */
type Days = string | DayTuple[];

/**
 * Compiled once per number of metrics (the overview and reports ask for the same few each time).
 * The day rows come back as one JSON array: on SQLite a row object per day cost about 1 µs (its
 * three strings), more than the sums themselves (ADR 0141). Both parts of a sum stay inside a
 * double (counter-parts.ts: each slot's `value` is below 10^12), so JSON numbers hold them exactly.
 */
const selectReportDays = definePreparedListQuery<{ days: Days }, DayParams, ReportFigure>(
  (db, param, metrics) => {
    const sums = db
      .selectFrom('report_counters')
      .select([
        'metric',
        'day',
        'currency',
        sql<number>`cast(sum(value) as bigint)`.as('lo'),
        sql<number>`cast(sum(value_hi) as bigint)`.as('hi'),
      ])
      .where('program_id', '=', param('programId'))
      .where('owner_kind', '=', param('kind'))
      .where('owner_id', '=', param('ownerId'))
      .where('metric', 'in', metrics)
      .where('day', '>=', param('startDay'))
      .where('day', '<=', param('endDay'))
      .groupBy(['metric', 'day', 'currency']);
    const days = isPostgres(db)
      ? sql<Days>`coalesce(json_agg(json_build_array(d.metric, d.day, d.currency, d.lo, d.hi)), '[]')`
      : sql<Days>`json_group_array(json_array(d.metric, d.day, d.currency, d.lo, d.hi))`;
    return db.selectFrom(sums.as('d')).select(days.as('days'));
  },
);

/** One owner's figures of `metrics` per UTC day of `[startDay, endDay]` (money per currency; '' for counts). */
export async function readReportDays(
  db: Kysely<DB>,
  programId: number,
  owner: ReportOwner,
  metrics: readonly ReportFigure[],
  startDay: string,
  endDay: string,
): Promise<ReportDay[]> {
  const [row] = await selectReportDays(
    db,
    { programId, kind: owner.kind, ownerId: owner.id, startDay, endDay },
    metrics,
  );
  // PostgreSQL's driver parses json itself; SQLite hands back the text.
  const days: DayTuple[] = typeof row?.days === 'string' ? JSON.parse(row.days) : (row?.days ?? []);
  return days.map(([metric, day, currency, lo, hi]) => ({
    metric,
    day,
    currency,
    value: joinCounterParts(lo, hi),
  }));
}

export type RankedOwner = { owner_id: number; figure: bigint };

type Ranking = { kind: Exclude<ReportOwner['kind'], 'program'>; metric: ReportFigure; currency: string };

/**
 * The owners of one kind ranked by one figure summed over `[startDay, endDay]`, highest first,
 * ties by id; owners whose figure is zero are left out. Exact: the sum is ordered as its two
 * parts (`hi × 10^12 + lo`, `lo` in [0, 10^12)).
 */
export async function rankReportOwners(
  db: Kysely<DB>,
  programId: number,
  ranking: Ranking,
  startDay: string,
  endDay: string,
  limit: number,
): Promise<RankedOwner[]> {
  const { metric } = ranking;
  const fromTotals =
    !isPostgres(db) && isTotalled(metric)
      ? await rankFromTotals(db, programId, { ...ranking, metric }, startDay, endDay, limit)
      : undefined;
  return fromTotals ?? (await rankFromDays(db, programId, ranking, startDay, endDay, limit));
}

/** Every owner's day rows summed, then ordered: reads one row per owner and day of the range. */
async function rankFromDays(
  db: Kysely<DB>,
  programId: number,
  ranking: Ranking,
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

/** The figures migration 0040 keeps all-time totals of, in order (SQLite only, ADR 0124). */
type Totalled = ReportTotalsTable['metric'];
const isTotalled = (metric: ReportFigure): metric is Totalled =>
  metric === 'customers' || metric === 'sales' || metric === 'revenue';

/** How many owners a ranking reads by their totals before it sums every day row instead. */
const MOST_CANDIDATES = 2_000;

/** A batch of owners by their all-time totals, best first (ties by id). */
const selectBestTotals = definePreparedQuery<
  { owner_id: number; value: number; value_hi: number },
  Omit<Ranking, 'metric'> & { programId: number; metric: Totalled; limit: number; offset: number }
>((db, param) =>
  db
    .selectFrom('report_totals')
    .select(['owner_id', 'value', 'value_hi'])
    .where('program_id', '=', param('programId'))
    .where('owner_kind', '=', param('kind'))
    .where('metric', '=', param('metric'))
    .where('currency', '=', param('currency'))
    .orderBy('value_hi', 'desc')
    .orderBy('value', 'desc')
    .orderBy('owner_id')
    .limit(param('limit'))
    .offset(param('offset')),
);

/**
 * The same ranking read best total first (a threshold algorithm): owners are taken in order of
 * their all-time figure, each one's range summed from its day rows, until the owners found beat
 * every total left, since no owner's figure over a range exceeds its total (these figures are
 * never negative on any day). `undefined` when that takes more than `MOST_CANDIDATES` owners (a
 * short range of a program whose best owners of all time are quiet in it).
 */
async function rankFromTotals(
  db: Kysely<DB>,
  programId: number,
  ranking: Ranking & { metric: Totalled },
  startDay: string,
  endDay: string,
  limit: number,
): Promise<RankedOwner[] | undefined> {
  const best: RankedOwner[] = [];
  // One more than asked first (enough when the range holds most of the figures), then twice as many each time.
  for (let read = 0, batch = limit + 1; read < MOST_CANDIDATES; read += batch, batch *= 2) {
    const totals = await selectBestTotals(db, {
      programId,
      kind: ranking.kind,
      metric: ranking.metric,
      currency: ranking.currency,
      limit: batch,
      offset: read,
    });
    const ids = totals.map((row) => Number(row.owner_id));
    if (ids.length > 0) best.push(...(await rangeFigures(db, programId, ranking, ids, startDay, endDay)));
    best.sort((a, b) => (a.figure === b.figure ? a.owner_id - b.owner_id : a.figure > b.figure ? -1 : 1));
    best.splice(limit);
    const last = totals.at(-1);
    if (!last || totals.length < batch) return best;
    // An owner not read yet has a total, so a figure, of at most the last total read; with that
    // very total it comes after the last owner read (ties are read by id).
    const left = joinCounterParts(last.value, last.value_hi);
    const lowest = best.at(-1);
    if (left === 0n) return best;
    if (best.length === limit && lowest !== undefined && beats(lowest, left, Number(last.owner_id)))
      return best;
  }
  return undefined;
}

/**
 * Whether `ranked` stays ahead of every owner not read yet, whose figure is at most `left` and
 * who, when that is its total, comes after `lastId` (ties rank by id).
 */
const beats = (ranked: RankedOwner, left: bigint, lastId: number) =>
  ranked.figure > left || (ranked.figure === left && ranked.owner_id <= lastId);

/**
 * The owners' figures over the range, from their day rows (zeros left out). SQLite only: named
 * to read each owner's rows by the table's key (`sqlite_autoindex_…_1`, the key of a `WITHOUT
 * ROWID` table), where without statistics the planner took the ranking index and walked every
 * owner's days of the range (270 ms against 0.5 ms on the 100,000-partner seed).
 */
const selectRangeFigures = definePreparedListQuery<
  { owner_id: number; lo: string; hi: string },
  Ranking & { programId: number; startDay: string; endDay: string },
  number
>((db, param, ownerIds) => {
  const statement = sql<{ owner_id: number; lo: string; hi: string }>`
    select owner_id, sum(value) as lo, sum(value_hi) as hi
    from report_counters indexed by sqlite_autoindex_report_counters_1
    where program_id = ${param('programId')} and owner_kind = ${param('kind')}
      and owner_id in (${sql.join(ownerIds)}) and metric = ${param('metric')}
      and day >= ${param('startDay')} and day <= ${param('endDay')} and currency = ${param('currency')}
    group by owner_id`;
  return { compile: () => statement.compile(db) };
});

async function rangeFigures(
  db: Kysely<DB>,
  programId: number,
  ranking: Ranking,
  ownerIds: readonly number[],
  startDay: string,
  endDay: string,
): Promise<RankedOwner[]> {
  const rows = await selectRangeFigures(db, { ...ranking, programId, startDay, endDay }, ownerIds);
  return rows
    .map((row) => ({ owner_id: Number(row.owner_id), figure: joinCounterParts(row.lo, row.hi) }))
    .filter((row) => row.figure !== 0n);
}
