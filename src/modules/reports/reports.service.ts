import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { fieldError } from '../../core/errors.ts';
import { microsFrom, microsToNumber } from '../../core/money.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import type { ProgramType } from '../../core/program-types.ts';
import {
  bucketOf,
  bucketsOf,
  DEFAULT_RANGE_DAYS,
  daysBetween,
  groupingPrefix,
  type Interval,
  isCalendarDate,
  isTimeZone,
  isUtc,
  localDayOfPrefix,
  localMidnightUtc,
  MAX_RANGE_DAYS,
  todayIn,
  utcWindow,
} from '../../core/report-buckets.ts';
import { addDays } from '../../core/time.ts';
import type { CountRow, MoneyRow, RowFilters } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';
import { countRewards, sumCommissions } from '../commissions/commissions.reports.service.ts';
import { type ClickOwner, dailyClicks } from '../counters/counters.clicks.repository.ts';
import { rankReportOwners } from '../counters/counters.reports.repository.ts';
import { countCustomers } from '../customers/customers.reports.service.ts';
import { findCustomerByRef } from '../customers/customers.service.ts';
import { findPartnerByRef } from '../partners/partners.service.ts';
import { readProgram } from '../program/program.service.ts';
import { findLinkByKey } from '../referral-links/referral-links.service.ts';
import { countSubscribers } from '../subscribers/subscribers.reports.service.ts';
import { countSales, salesBuyers, sumRevenue } from '../transactions/transactions.reports.service.ts';
import {
  type Counts,
  countedByBucket,
  countedRanking,
  counterOwnerOf,
  isCounted,
  isMoneyMetric,
  type Sums,
} from './reports.counted.ts';
import type {
  CountMetric,
  Metric,
  MoneyMetric,
  TimeseriesQuery,
  TimeseriesResponse,
  TopQuery,
  TopRows,
} from './reports.schemas.ts';
import { ownerLabels, type TopSource, topOwners } from './reports.top.ts';

/** Which metrics each program type has, in the order a default report lists them. */
const metricsByType: Record<ProgramType, readonly Metric[]> = {
  affiliate: ['clicks', 'signups', 'customers', 'paying_customers', 'sales', 'revenue', 'commissions'],
  referral: ['clicks', 'signups', 'customers', 'paying_customers', 'sales', 'revenue', 'rewards'],
  newsletter: ['signups', 'subscribers'],
};

/** The program's report time zone (setting `timezone`, default UTC); a stored unknown zone reads as UTC. */
async function programTimeZone(ctx: ProgramContext): Promise<string> {
  const row = await readProgram(ctx.database.db, ctx.program.id);
  const zone = row ? programSettingsOf(ctx.program.type, row.settings).timezone : undefined;
  return typeof zone === 'string' && isTimeZone(zone) ? zone : 'UTC';
}

/** `start` and `end` checked and defaulted: the last 30 days, at most three years. */
function rangeOf(query: { start?: string; end?: string }, zone: string, nowMillis: number) {
  for (const field of ['start', 'end'] as const) {
    const value = query[field];
    if (value !== undefined && !isCalendarDate(value))
      throw fieldError(field, 'refused', `The ${field} must be a date (YYYY-MM-DD).`);
  }
  const end =
    query.end ?? (query.start ? addDays(query.start, DEFAULT_RANGE_DAYS - 1) : todayIn(zone, nowMillis));
  const start = query.start ?? addDays(end, -(DEFAULT_RANGE_DAYS - 1));
  if (end < start) throw fieldError('end', 'refused', 'The end must be a date on or after start.');
  if (daysBetween(start, end) + 1 > MAX_RANGE_DAYS)
    throw fieldError('end', 'refused', `The range may span at most ${MAX_RANGE_DAYS} days.`);
  return { start, end };
}

function metricsOf(type: ProgramType, given: string | undefined): Metric[] {
  const available = metricsByType[type];
  if (given === undefined) return [...available];
  const names = given.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(available as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0 || names.some((name) => name === ''))
    throw fieldError(
      'metrics',
      'refused',
      `The metrics must be a comma list of ${available.join(', ')}; unknown: ${unknown.join(', ') || '(empty)'}.`,
    );
  return [...new Set(names)] as Metric[];
}

function currencyOf(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (!/^[A-Za-z]{3}$/.test(given))
    throw fieldError('currency', 'refused', 'The currency must be a three-letter code.');
  return given.toUpperCase();
}

/** Partner, link and referrer filters resolved to row ids; another program's reads as missing. */
async function filtersOf(
  ctx: ProgramContext,
  query: { partner?: string; link?: string; customer?: string },
): Promise<RowFilters> {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const filters: RowFilters = {};
  if (query.partner !== undefined) {
    if (ctx.program.type !== 'affiliate')
      throw fieldError('partner', 'refused', 'Only affiliate programs have partners.');
    const partner =
      (await findPartnerByRef(db, programId, { id: query.partner })) ??
      (await findPartnerByRef(db, programId, { key: query.partner }));
    if (!partner) throw fieldError('partner', 'refused', 'The selected partner is invalid.');
    filters.partnerId = Number(partner.id);
  }
  if (query.link !== undefined) {
    if (ctx.program.type === 'newsletter')
      throw fieldError('link', 'refused', 'Newsletter programs have no links.');
    const link = await findLinkByKey(db, programId, query.link);
    if (!link) throw fieldError('link', 'refused', 'The selected link is invalid.');
    filters.linkId = Number(link.id);
  }
  if (query.customer !== undefined) {
    if (ctx.program.type !== 'referral')
      throw fieldError('customer', 'refused', 'Only refer-a-friend programs have referrers.');
    const customer = await findCustomerByRef(db, programId, { id: query.customer });
    if (!customer) throw fieldError('customer', 'refused', 'The selected customer is invalid.');
    filters.referrerId = Number(customer.id);
  }
  return filters;
}

/** The clicks owner a filter names (clicks are kept per partner, link and referrer, one at a time). */
function clickOwnerOf(filters: RowFilters): ClickOwner | undefined {
  if (filters.linkId !== undefined) return { kind: 'link', id: filters.linkId };
  if (filters.partnerId !== undefined) return { kind: 'partner', id: filters.partnerId };
  if (filters.referrerId !== undefined) return { kind: 'customer', id: filters.referrerId };
  return undefined;
}

/**
 * `GET /v1/reports/timeseries`: each metric per bucket of `[start, end]`, every bucket present.
 * In a UTC program the counted metrics are read from the per-day counters (ADR 0123); otherwise,
 * and for paying customers, figures from rows are put in the program zone's local days exactly.
 * Clicks are per UTC day.
 */
export async function getTimeseries(
  ctx: ProgramContext,
  query: TimeseriesQuery,
): Promise<TimeseriesResponse> {
  const zone = await programTimeZone(ctx);
  const metrics = metricsOf(ctx.program.type, query.metrics);
  const { start, end } = rangeOf(query, zone, ctx.clock.nowMicros() / 1000);
  const currency = currencyOf(query.currency);
  const filters = await filtersOf(ctx, query);
  const interval = query.interval as Interval;
  const buckets = bucketsOf(start, end, interval);
  const window = {
    ...(isUtc(zone) ? { from: start, until: addDays(end, 1) } : utcWindow(start, end)),
    prefix: groupingPrefix(zone, start, end),
  };
  const dayOf = localDayOfPrefix(zone);
  const inRange = (day: string) => day >= start && day <= end;
  const db = ctx.database.db;
  const programId = ctx.program.id;

  const counted = (rows: CountRow[]): Counts => {
    const counts: Counts = new Map();
    for (const row of rows) {
      const day = dayOf(row.slice);
      if (!inRange(day)) continue;
      const bucket = bucketOf(day, interval);
      counts.set(bucket, (counts.get(bucket) ?? 0) + Number(row.n));
    }
    return counts;
  };
  const summed = (rows: MoneyRow[]): Sums => {
    const sums: Sums = new Map();
    for (const row of rows) {
      if (currency !== undefined && row.currency !== currency) continue;
      const day = dayOf(row.slice);
      if (!inRange(day)) continue;
      const bucket = bucketOf(day, interval);
      const ofCurrency = sums.get(row.currency) ?? new Map<string, bigint>();
      ofCurrency.set(bucket, (ofCurrency.get(bucket) ?? 0n) + microsFrom(row.micros));
      sums.set(row.currency, ofCurrency);
    }
    return sums;
  };
  const countOf = async (metric: CountMetric): Promise<Counts> => {
    switch (metric) {
      case 'clicks':
        return clicksByBucket(db, programId, start, end, interval, clickOwnerOf(filters));
      case 'signups':
        return ctx.program.type === 'newsletter'
          ? counted(await countSubscribers(db, programId, window, true))
          : counted(await countCustomers(db, programId, window, filters, true));
      case 'customers':
        return counted(await countCustomers(db, programId, window, filters, false));
      case 'subscribers':
        return counted(await countSubscribers(db, programId, window, false));
      case 'sales':
        return counted(await countSales(db, programId, window, filters));
      case 'paying_customers':
        return payingByBucket(await salesBuyers(db, programId, window, filters), dayOf, inRange, interval);
      case 'rewards':
        return counted(await countRewards(db, programId, window, filters));
    }
  };
  const sumOf = async (metric: MoneyMetric): Promise<Sums> => {
    switch (metric) {
      case 'revenue':
        return summed(await sumRevenue(db, programId, window, filters));
      case 'commissions':
        return summed(await sumCommissions(db, programId, window, filters));
    }
  };
  const owner = counterOwnerOf(programId, filters);
  const fromCounters =
    isUtc(zone) && owner !== undefined && ctx.program.type !== 'newsletter' ? metrics.filter(isCounted) : [];
  const figures =
    owner !== undefined && fromCounters.length > 0
      ? await countedByBucket(db, programId, owner, fromCounters, { start, end, interval, currency })
      : { counts: new Map(), sums: new Map() };
  for (const metric of metrics)
    if (isMoneyMetric(metric)) {
      if (!figures.sums.has(metric)) figures.sums.set(metric, await sumOf(metric));
    } else if (!figures.counts.has(metric)) figures.counts.set(metric, await countOf(metric));

  // A currency is shown when one of its buckets is not zero (or when it was asked for).
  const shown = new Set<Map<string, bigint>>();
  for (const sums of figures.sums.values())
    for (const byBucket of sums.values())
      if ([...byBucket.values()].some((micros) => micros !== 0n)) shown.add(byBucket);
  // Each money metric's shown currencies in code order, found once for every bucket.
  const shownCurrencies = new Map<MoneyMetric, [string, Map<string, bigint>][]>();
  for (const [metric, sums] of figures.sums)
    shownCurrencies.set(
      metric,
      [...sums]
        .filter(([code, byBucket]) => code === currency || shown.has(byBucket))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  // Each metric's figures found once, not once per bucket.
  type Column =
    | { metric: Metric; currencies: [string, Map<string, bigint>][] }
    | { metric: Metric; counts: Counts };
  const columns = metrics.map(
    (metric): Column =>
      isMoneyMetric(metric)
        ? { metric, currencies: shownCurrencies.get(metric) ?? [] }
        : { metric, counts: figures.counts.get(metric) ?? new Map<string, number>() },
  );
  const data = buckets.map((date) => {
    const point: Record<string, unknown> = { date };
    for (const column of columns) {
      if ('currencies' in column) {
        const money: Record<string, number> = {};
        if (currency !== undefined) money[currency] = 0;
        for (const [code, byBucket] of column.currencies)
          money[code] = microsToNumber(byBucket.get(date) ?? 0n);
        point[column.metric] = money;
      } else point[column.metric] = column.counts.get(date) ?? 0;
    }
    return point as TimeseriesResponse['data'][number];
  });
  return { data, meta: { interval, start, end, timezone: zone, metrics }, status: 1 };
}

async function clicksByBucket(
  db: Kysely<DB>,
  programId: number,
  start: string,
  end: string,
  interval: Interval,
  owner: ClickOwner | undefined,
): Promise<Counts> {
  const counts: Counts = new Map();
  for (const row of await dailyClicks(db, programId, start, end, owner)) {
    const bucket = bucketOf(row.day, interval);
    counts.set(bucket, (counts.get(bucket) ?? 0) + Number(row.value));
  }
  return counts;
}

function payingByBucket(
  rows: { slice: string; customer_id: number }[],
  dayOf: (prefix: string) => string,
  inRange: (day: string) => boolean,
  interval: Interval,
): Counts {
  const buyers = new Map<string, Set<number>>();
  for (const row of rows) {
    const day = dayOf(row.slice);
    if (!inRange(day)) continue;
    const bucket = bucketOf(day, interval);
    const set = buyers.get(bucket) ?? new Set<number>();
    set.add(Number(row.customer_id));
    buyers.set(bucket, set);
  }
  return new Map([...buyers].map(([bucket, set]) => [bucket, set.size]));
}

const ownerColumnOf = {
  partners: 'partner',
  links: 'link',
  referrers: 'referrer',
  promotion_codes: 'promotion_code',
} as const;

/** Which ranking a `by` and `metric` name, or the field that is wrong. */
function topSourceOf(ctx: ProgramContext, query: TopQuery, currency: string | undefined): TopSource {
  const type = ctx.program.type;
  if (type === 'newsletter') throw fieldError('by', 'refused', 'Newsletter programs have no rankings here.');
  if (query.by === 'partners' && type !== 'affiliate')
    throw fieldError('by', 'refused', 'Only affiliate programs have partners.');
  if (query.by === 'referrers' && type !== 'referral')
    throw fieldError('by', 'refused', 'Only refer-a-friend programs have referrers.');
  if (query.by === 'promotion_codes') {
    if (query.metric !== 'sales')
      throw fieldError('metric', 'refused', 'Promotion codes rank by sales (redemptions) only.');
    return { metric: 'redemptions', by: 'promotion_code' };
  }
  const by = ownerColumnOf[query.by];
  if (query.metric === 'revenue' || query.metric === 'commissions') {
    if (query.metric === 'commissions' && type !== 'affiliate')
      throw fieldError('metric', 'refused', 'Only affiliate programs have commissions.');
    if (query.metric === 'commissions' && by === 'referrer')
      throw fieldError('metric', 'refused', 'Referrers earn rewards, not commissions.');
    if (currency === undefined)
      throw fieldError('currency', 'refused', `The currency is required with ${query.metric}.`);
    return { metric: query.metric, by, currency };
  }
  return { metric: query.metric, by };
}

/** `GET /v1/reports/top`: owners ranked by one figure over `[start, end]` (UTC days for clicks). */
export async function getTop(ctx: ProgramContext, query: TopQuery): Promise<TopRows> {
  const zone = await programTimeZone(ctx);
  const { start, end } = rangeOf(query, zone, ctx.clock.nowMicros() / 1000);
  const currency = currencyOf(query.currency);
  const source = topSourceOf(ctx, query, currency);
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const window = isUtc(zone)
    ? { from: start, until: addDays(end, 1) }
    : { from: localMidnightUtc(zone, start), until: localMidnightUtc(zone, addDays(end, 1)) };
  const ranked =
    isUtc(zone) && source.metric !== 'clicks' && source.metric !== 'redemptions'
      ? await rankReportOwners(
          db,
          programId,
          countedRanking(source.by, source.metric, 'currency' in source ? source.currency : undefined),
          start,
          end,
          query.limit,
        )
      : await topOwners(db, programId, source, { ...window, startDay: start, endDay: end }, query.limit);
  const labels = await ownerLabels(
    db,
    programId,
    source.by,
    ranked.map((row) => Number(row.owner_id)),
  );
  const labelOf = new Map(labels.map((label) => [Number(label.owner_id), label]));
  const money = source.metric === 'revenue' || source.metric === 'commissions';
  return ranked.map((row) => {
    const label = labelOf.get(Number(row.owner_id));
    return {
      id: label?.id ?? String(row.owner_id),
      key: label?.key ?? null,
      name: label?.name || null,
      value: money ? microsToNumber(microsFrom(row.figure)) : Number(row.figure),
    };
  });
}
