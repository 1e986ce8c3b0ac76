import { type Static, Type } from 'typebox';
import { DateOnly, Success } from '../../http/schemas.ts';

/** Wire shapes of `/v1/reports/…` (issue 26, a Vouch extension of `/v1`). */

export const COUNT_METRICS = [
  'clicks',
  'signups',
  'customers',
  'paying_customers',
  'sales',
  'rewards',
  'subscribers',
] as const;
export const MONEY_METRICS = ['revenue', 'commissions'] as const;
export type CountMetric = (typeof COUNT_METRICS)[number];
export type MoneyMetric = (typeof MONEY_METRICS)[number];
export type Metric = CountMetric | MoneyMetric;

const DateText = (description: string) =>
  Type.String({
    maxLength: 10,
    description: `${description} (YYYY-MM-DD, inclusive)`,
    examples: ['2026-11-02'],
  });

const filters = {
  partner: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Only figures of this partner (its id or key)',
    }),
  ),
  link: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Only figures of this referral link (its key)',
    }),
  ),
  customer: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Only figures of this refer-a-friend referrer (customer id)',
    }),
  ),
};

export const TimeseriesQuery = Type.Object({
  metrics: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Comma list of clicks, signups, customers, paying_customers, sales, revenue, commissions (affiliate), rewards (refer-a-friend), subscribers (newsletter); default: every metric of the program type',
      examples: ['clicks,signups,sales,revenue'],
    }),
  ),
  interval: Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], {
    default: 'day',
    description: 'Bucket size: a day, a week starting Monday, a month',
  }),
  start: Type.Optional(DateText('First day; default 29 days before `end`')),
  end: Type.Optional(DateText('Last day; default today in the program time zone')),
  ...filters,
  currency: Type.Optional(
    Type.String({
      maxLength: 3,
      description:
        'Money metrics in this currency only; without it, one figure per currency seen in the range',
    }),
  ),
});
export type TimeseriesQuery = Static<typeof TimeseriesQuery>;

const Money = Type.Record(Type.String(), Type.Number(), {
  description: 'Per currency, in units with decimals (exact to the micro-unit)',
  examples: [{ USD: 99.99 }],
});

export const TimeseriesPoint = Type.Object(
  {
    date: DateOnly,
    clicks: Type.Optional(Type.Integer()),
    signups: Type.Optional(Type.Integer({ description: 'Customers a partner or referrer brought' })),
    customers: Type.Optional(Type.Integer()),
    paying_customers: Type.Optional(
      Type.Integer({ description: 'Distinct buyers with a sale in the bucket' }),
    ),
    sales: Type.Optional(Type.Integer()),
    revenue: Type.Optional(Money),
    commissions: Type.Optional(Money),
    rewards: Type.Optional(Type.Integer({ description: 'Rewards given' })),
    subscribers: Type.Optional(Type.Integer()),
  },
  { title: 'TimeseriesPoint' },
);

export const TimeseriesResponse = Type.Object(
  {
    data: Type.Array(TimeseriesPoint),
    meta: Type.Object({
      interval: Type.String(),
      start: DateOnly,
      end: DateOnly,
      timezone: Type.String({ description: 'The program time zone buckets are days of' }),
      metrics: Type.Array(Type.String()),
    }),
    status: Type.Literal(1),
  },
  {
    title: 'TimeseriesResponse',
    examples: [
      {
        data: [
          { date: '2026-11-02', clicks: 12, signups: 3, revenue: { USD: 99.99 } },
          { date: '2026-11-09', clicks: 0, signups: 0, revenue: { USD: 0 } },
        ],
        meta: {
          interval: 'week',
          start: '2026-11-02',
          end: '2026-11-15',
          timezone: 'UTC',
          metrics: ['clicks', 'signups', 'revenue'],
        },
        status: 1,
      },
    ],
  },
);
export type TimeseriesResponse = Static<typeof TimeseriesResponse>;

export const TopQuery = Type.Object({
  by: Type.Union(
    [
      Type.Literal('partners'),
      Type.Literal('links'),
      Type.Literal('referrers'),
      Type.Literal('promotion_codes'),
    ],
    { description: 'What is ranked' },
  ),
  metric: Type.Union(
    [
      Type.Literal('revenue'),
      Type.Literal('sales'),
      Type.Literal('signups'),
      Type.Literal('clicks'),
      Type.Literal('commissions'),
    ],
    {
      description:
        'The figure ranked by; revenue and commissions need `currency`; promotion codes rank by sales (redemptions)',
    },
  ),
  start: Type.Optional(DateText('First day; default 29 days before `end`')),
  end: Type.Optional(DateText('Last day; default today in the program time zone')),
  currency: Type.Optional(
    Type.String({ maxLength: 3, description: 'Required with revenue and commissions' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
});
export type TopQuery = Static<typeof TopQuery>;

export const TopRow = Type.Object(
  {
    id: Type.String({ description: 'The owner’s id (a link’s or a code’s is its key or code)' }),
    key: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    value: Type.Number({ description: 'The figure: a count, or money in units of `currency`' }),
  },
  { title: 'TopRow' },
);

export const TopResponse = Success(Type.Array(TopRow));
export type TopRows = Static<typeof TopRow>[];
