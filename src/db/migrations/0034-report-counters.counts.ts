import type { Dialect } from '../database.ts';

/**
 * What the report counters of migration 0034 count (ADR 0123), as SQL: for each row of
 * `customers`, `transactions` and `rewards`, its owners and figures, rendered as selects over a
 * table (the backfill, a buyer's sales) or over a trigger's row.
 */

/** The base of a figure's two parts (db/counter-parts.ts). */
export const B = '1000000000000';
const live = {
  customers: (r: string) => `${r}.deleted_at is null`,
  transactions: (r: string) => `${r}.deleted_at is null and ${r}.archived_at is null`,
  rewards: (r: string) => `${r}.deleted_at is null and ${r}.status not in ('denied', 'voided', 'rejected')`,
};
const isTrue = (dialect: Dialect, expression: string) =>
  dialect === 'postgres' ? expression : `${expression} <> 0`;

/**
 * What a row counts: each owner (kind, id expression) gets each figure (metric, currency, delta
 * as its two parts truncated toward zero, an optional condition), when the row is live (`live`).
 * `r` names the row: `new`, `old`, or a table alias (the backfill, a buyer's sales).
 */
type Owner = readonly [kind: string, id: string];
type Figure = readonly [metric: string, currency: string, lo: string, hi: string, when?: string];
type Counted = { owners: readonly Owner[]; figures: readonly Figure[]; live: string };
type Describe = (dialect: Dialect, r: string, sign: 1 | -1) => Counted;

const parts = (sign: 1 | -1, amount: string): [lo: string, hi: string] => [
  `${sign} * ((${amount}) % ${B})`,
  `${sign} * ((${amount}) / ${B})`,
];

const customerCounts: Describe = (_dialect, r, sign) => ({
  owners: [
    ['program', `${r}.program_id`],
    ['partner', `${r}.partner_id`],
    ['customer', `${r}.referring_customer_id`],
    ['link', `${r}.referral_link_id`],
  ],
  figures: [
    ['customers', `''`, `${sign}`, '0'],
    [
      'signups',
      `''`,
      `${sign}`,
      '0',
      `${r}.partner_id is not null or ${r}.referring_customer_id is not null`,
    ],
  ],
  live: live.customers(r),
});

const buyerLink = (r: string) =>
  `(select c.referral_link_id from customers c where c.program_id = ${r}.program_id and c.id = ${r}.customer_id)`;

const saleFigures = (dialect: Dialect, r: string, sign: 1 | -1): Figure[] => [
  ['sales', `''`, `${sign}`, '0'],
  [
    'revenue',
    `coalesce(${r}.amount_units, '')`,
    ...parts(sign, `${r}.amount - coalesce(${r}.refunded_amount, 0)`),
    isTrue(dialect, `${r}.is_currency`),
  ],
];

const saleCounts: Describe = (dialect, r, sign) => ({
  owners: [
    ['program', `${r}.program_id`],
    ['partner', `${r}.partner_id`],
    ['customer', `${r}.referring_customer_id`],
    ['link', buyerLink(r)],
  ],
  figures: saleFigures(dialect, r, sign),
  live: live.transactions(r),
});

const saleLink = (r: string) =>
  `(select c.referral_link_id from transactions t join customers c on c.program_id = t.program_id and c.id = t.customer_id
    where t.program_id = ${r}.program_id and t.id = ${r}.transaction_id)`;

const rewardFigures = (dialect: Dialect, r: string, sign: 1 | -1): Figure[] => [
  ['rewards', `''`, `${sign}`, '0'],
  [
    'commissions',
    `${r}.amount_units`,
    ...parts(sign, `${r}.amount`),
    `${r}.partner_id is not null and ${isTrue(dialect, `${r}.is_currency`)}`,
  ],
];

const rewardCounts: Describe = (dialect, r, sign) => ({
  owners: [
    ['program', `${r}.program_id`],
    ['partner', `${r}.partner_id`],
    ['customer', `${r}.customer_id`],
    ['link', saleLink(r)],
  ],
  figures: rewardFigures(dialect, r, sign),
  live: live.rewards(r),
});

/**
 * The contributions as selects of `(program_id, kind, owner, metric, day, currency, lo, hi)`, one
 * per owner and figure, from the table `from` names (the backfill, a buyer's sales).
 */
export function selectsOf(r: string, counted: Counted, from: string): string[] {
  return counted.owners.flatMap(([kind, id]) =>
    counted.figures.map(
      ([
        metric,
        currency,
        lo,
        hi,
        when,
      ]) => `select ${r}.program_id as program_id, '${kind}' as kind, ${id} as owner,
        '${metric}' as metric, substr(${r}.created_at, 1, 10) as day, ${currency} as currency, ${lo} as lo, ${hi} as hi
        ${from} where ${id} is not null and ${counted.live}${when ? ` and (${when})` : ''}`,
    ),
  );
}

/**
 * The contributions of the trigger's row `r`: its owners (each id read once) crossed with its
 * figures, filtered; on PostgreSQL both as VALUES lists (cheaper to plan and run on every write
 * than a union of selects), on SQLite as unions (no column names on VALUES there).
 */
export function rowContributions(dialect: Dialect, r: string, counted: Counted): string {
  const counts = (when: string | undefined) => (when ? `(${when})` : dialect === 'postgres' ? 'true' : '1');
  const [owners, figures] =
    dialect === 'postgres'
      ? [
          `(values ${counted.owners.map(([kind, id]) => `('${kind}', ${id})`).join(', ')}) as o (kind, owner)`,
          `(values ${counted.figures
            .map(
              ([metric, currency, lo, hi, when]) =>
                `('${metric}', ${currency}, ${lo}, ${hi}, ${counts(when)})`,
            )
            .join(', ')}) as m (metric, currency, lo, hi, counts)`,
        ]
      : [
          `(${counted.owners.map(([kind, id]) => `select '${kind}' as kind, ${id} as owner`).join(' union all ')}) as o`,
          `(${counted.figures
            .map(
              ([metric, currency, lo, hi, when]) =>
                `select '${metric}' as metric, ${currency} as currency, ${lo} as lo, ${hi} as hi, ${counts(when)} as counts`,
            )
            .join(' union all ')}) as m`,
        ];
  return `select ${r}.program_id as program_id, o.kind as kind, o.owner as owner, m.metric as metric,
    substr(${r}.created_at, 1, 10) as day, m.currency as currency, m.lo as lo, m.hi as hi
    from ${owners} cross join ${figures}
    where o.owner is not null and ${isTrue(dialect, 'm.counts')} and ${counted.live}`;
}

/**
 * A buyer's link changed (`r` is its old or new row): its sales and their rewards move between
 * the links' figures.
 */
export const buyerLinkSelects = (dialect: Dialect, r: string, sign: 1 | -1): string[] => {
  const owners: Owner[] = [['link', `${r}.referral_link_id`]];
  const moved =
    dialect === 'postgres'
      ? 'old.referral_link_id is distinct from new.referral_link_id'
      : 'old.referral_link_id is not new.referral_link_id';
  const ofBuyer = `${moved} and t.program_id = ${r}.program_id and t.customer_id = ${r}.id`;
  return [
    ...selectsOf(
      't',
      { owners, figures: saleFigures(dialect, 't', sign), live: `${ofBuyer} and ${live.transactions('t')}` },
      'from transactions t',
    ),
    ...selectsOf(
      'w',
      { owners, figures: rewardFigures(dialect, 'w', sign), live: `${ofBuyer} and ${live.rewards('w')}` },
      'from transactions t join rewards w on w.program_id = t.program_id and w.transaction_id = t.id',
    ),
  ];
};

/** The columns whose change moves a table's figures (an update of any other fires nothing). */
export const watched = {
  customers: ['deleted_at', 'partner_id', 'referring_customer_id', 'referral_link_id', 'created_at'],
  transactions: [
    'deleted_at',
    'archived_at',
    'amount',
    'refunded_amount',
    'amount_units',
    'is_currency',
    'partner_id',
    'referring_customer_id',
    'customer_id',
    'created_at',
  ],
  rewards: [
    'deleted_at',
    'status',
    'amount',
    'amount_units',
    'is_currency',
    'partner_id',
    'customer_id',
    'transaction_id',
    'created_at',
  ],
} as const;
export type Watched = keyof typeof watched;

export const countsOf: Record<Watched, Describe> = {
  customers: customerCounts,
  transactions: saleCounts,
  rewards: rewardCounts,
};
