import { getProgramOverview } from '../program/program.service.ts';
import { getTimeseries, getTop } from '../reports/reports.service.ts';
import type { OverviewChart, OverviewFigure, OverviewView } from './console.overview.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';

/**
 * What a program's overview page shows, from the services `/v1` answers with: the overview's
 * figures (`GET /v1/program`), daily series (`GET /v1/reports/timeseries`) and the top earners
 * (`GET /v1/reports/top`).
 */
export async function getOverview(
  program: ConsoleProgram,
  links: { baseUrl: string },
): Promise<OverviewView> {
  const { ctx } = program;
  const overview = await getProgramOverview(ctx, links);
  const count = (value: number) => value.toLocaleString('en-US');
  const revenue = Object.entries(overview.total_revenue_from_sales);
  const figures: OverviewFigure[] = [
    ...(program.type === 'newsletter'
      ? []
      : [{ label: 'Clicks', value: count(overview.total_clicks), growth: overview.total_clicks_growth }]),
    { label: 'Customers', value: count(overview.total_customers), growth: overview.total_customers_growth },
    { label: 'Sales', value: count(overview.total_sales), growth: overview.total_sales_growth },
    {
      label: 'Revenue',
      // Each amount is formatted with its currency already; the code is added when there are several.
      value:
        revenue.length === 0
          ? '0'
          : revenue.length === 1
            ? (revenue[0]?.[1] ?? '0')
            : revenue.map(([currency, amount]) => `${amount} ${currency.toUpperCase()}`).join(', '),
      growth: undefined,
    },
  ];
  const metrics = program.type === 'newsletter' ? 'signups,subscribers' : 'clicks,signups,sales,revenue';
  const series = await getTimeseries(ctx, { metrics, interval: 'day' });
  const counted = (id: 'clicks' | 'signups' | 'sales' | 'subscribers', title: string): OverviewChart => ({
    id: `chart-${id}`,
    title,
    points: series.data.map((point) => ({ date: point.date, value: point[id] ?? 0 })),
  });
  const charts: OverviewChart[] =
    program.type === 'newsletter'
      ? [counted('signups', 'Referred subscribers'), counted('subscribers', 'Subscribers')]
      : [counted('clicks', 'Clicks'), counted('signups', 'Signups'), counted('sales', 'Sales')];
  const currencies = new Set(series.data.flatMap((point) => Object.keys(point.revenue ?? {})));
  for (const currency of [...currencies].sort())
    charts.push({
      id: `chart-revenue-${currency.toLowerCase()}`,
      title: `Revenue (${currency})`,
      currency,
      points: series.data.map((point) => ({ date: point.date, value: point.revenue?.[currency] ?? 0 })),
    });
  const by =
    program.type === 'affiliate' ? 'partners' : program.type === 'referral' ? 'referrers' : undefined;
  const top = by
    ? {
        title: by === 'partners' ? 'Top partners by sales' : 'Top referrers by sales',
        rows: (await getTop(ctx, { by, metric: 'sales', limit: 5 })).map((row) => ({
          name: row.name ?? row.key ?? row.id,
          value: `${count(row.value)} ${row.value === 1 ? 'sale' : 'sales'}`,
        })),
      }
    : undefined;
  const portal = overview.overview_program_current_settings.partner_portal_url;
  return {
    figures,
    charts,
    top,
    links: portal ? [{ label: 'Partner portal', url: portal }] : [],
  };
}
