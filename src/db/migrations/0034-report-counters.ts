import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.ts';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 26, ADR 0123: per-day report figures (`report_counters`) of the program and of each
 * partner, link and refer-a-friend referrer: customers, signups, sales, revenue net of refunds
 * and commissions per currency, rewards. Triggers on `customers`, `transactions` and `rewards`
 * keep them in the write's own transaction, whatever path writes (sale, refund, delete, archive,
 * commission denial or clawback, a key set null by a removal), as what the row of the old values
 * counted taken off and what the row of the new values counts added, on the UTC day of the
 * row's `created_at`. A sale's link is its buyer's (`customers.referral_link_id`), a reward's
 * link its sale's buyer's. The rows of existing programs are counted once here (backfill).
 *
 * Money is exact: each delta is kept as `value_hi × 10^12 + value` (db/counter-parts.ts) and
 * summed as its two truncated parts, so no sum leaves int64. On PostgreSQL a write adds to its
 * connection's slot (db/counter-slots.ts), as the other figures do.
 */
export const reportCounters: VouchMigration = {
  async up(db, dialect) {
    await db.schema
      .createTable('report_counters')
      .addColumn('program_id', 'bigint', (c) => c.notNull())
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'bigint', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('slot', 'smallint', (c) => c.notNull().defaultTo(0))
      .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('value_hi', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('report_counters_pk', [
        'program_id',
        'owner_kind',
        'owner_id',
        'metric',
        'day',
        'currency',
        'slot',
      ])
      // SQLite: the key is the table (no rowid b-tree beside it), one b-tree less per write.
      .$call((table) => (dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
      .execute();
    // Rankings: one metric (and currency) of every owner of a kind over a range of days. SQLite
    // carries the values (the ranking reads the index only); PostgreSQL does not, so an update of a
    // hot figure stays in its page (ADR 0012).
    await db.schema
      .createIndex('report_counters_ranking')
      .on('report_counters')
      .columns([
        'program_id',
        'owner_kind',
        'metric',
        'currency',
        'day',
        'owner_id',
        ...(dialect === 'sqlite' ? ['value', 'value_hi'] : []),
      ])
      .execute();

    const statements = dialect === 'postgres' ? postgresTriggers() : sqliteTriggers();
    for (const statement of statements) await sql.raw(statement).execute(db);
    await backfill(db, dialect);
  },
};

const B = '1000000000000';
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
function selectsOf(r: string, counted: Counted, from: string): string[] {
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
function rowContributions(dialect: Dialect, r: string, counted: Counted): string {
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
const buyerLinkSelects = (dialect: Dialect, r: string, sign: 1 | -1): string[] => {
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

const slotOf = (dialect: Dialect) =>
  dialect === 'postgres'
    ? `cast(coalesce(nullif(current_setting('vouch.counter_slot', true), ''), '0') as smallint)`
    : '0';

const upsert = `
  on conflict (program_id, owner_kind, owner_id, metric, day, currency, slot) do update set
    value = (report_counters.value + excluded.value) % ${B},
    value_hi = report_counters.value_hi + excluded.value_hi + (report_counters.value + excluded.value) / ${B}`;

const columns = 'program_id, owner_kind, owner_id, metric, day, currency, slot, value, value_hi';
/** `lo + hi × 10^12` as stored: the low part in [0, 10^12), the carry in the high part. */
const normalised = `((lo % ${B}) + ${B}) % ${B}, hi + (lo - ((lo % ${B}) + ${B}) % ${B}) / ${B}`;

/**
 * The upsert of one row's contributions (an insert's or a delete's: one per figure, so no sums),
 * in key order (PostgreSQL row locks), carrying as db/counter-parts.ts does.
 */
function addRow(contributions: string, slot: string): string {
  return `insert into report_counters (${columns})
  select program_id, kind, owner, metric, day, currency, ${slot}, ${normalised}
  from (${contributions}) as c
  where lo <> 0 or hi <> 0
  order by kind, owner, metric, currency ${upsert}`;
}

/** The upsert of the sums of contributions per figure (an update's old and new rows, the backfill), zeros left out. */
function addSums(dialect: Dialect, contributions: string[], slot: string): string {
  const sum = (column: string) =>
    dialect === 'postgres' ? `cast(sum(${column}) as bigint)` : `sum(${column})`;
  return `insert into report_counters (${columns})
  select program_id, kind, owner, metric, day, currency, ${slot}, ${normalised}
  from (
    select program_id, kind, owner, metric, day, currency, ${sum('lo')} as lo, ${sum('hi')} as hi
    from (${contributions.join('\n  union all\n')}) as c
    group by program_id, kind, owner, metric, day, currency
  ) as s
  where lo <> 0 or hi <> 0
  order by program_id, kind, owner, metric, day, currency ${upsert}`;
}

/** The columns whose change moves a table's figures (an update of any other fires nothing). */
const watched = {
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
type Watched = keyof typeof watched;

const countsOf: Record<Watched, Describe> = {
  customers: customerCounts,
  transactions: saleCounts,
  rewards: rewardCounts,
};

/**
 * Before a customer or a sale goes, the rows that go with it (its sales, their rewards) are
 * deleted first, while the rows their links are read from still exist; the cascades that follow
 * then find nothing.
 */
const children = {
  customers: `delete from transactions where program_id = old.program_id and customer_id = old.id`,
  transactions: `delete from rewards where program_id = old.program_id and transaction_id = old.id`,
} as const;

/** An update: what the old row counted taken off, what the new one counts added, summed per figure. */
function updateStatement(dialect: Dialect, table: Watched, slot: string): string {
  const own = [
    rowContributions(dialect, 'old', countsOf[table](dialect, 'old', -1)),
    rowContributions(dialect, 'new', countsOf[table](dialect, 'new', 1)),
  ];
  const moves =
    table === 'customers'
      ? [...buyerLinkSelects(dialect, 'old', -1), ...buyerLinkSelects(dialect, 'new', 1)]
      : [];
  return addSums(dialect, [...own, ...moves], slot);
}

const rowStatement = (dialect: Dialect, table: Watched, r: 'new' | 'old', slot: string) =>
  addRow(rowContributions(dialect, r, countsOf[table](dialect, r, r === 'new' ? 1 : -1)), slot);

function sqliteTriggers(): string[] {
  const statements: string[] = [];
  for (const table of Object.keys(watched) as Watched[]) {
    const changed = watched[table].map((column) => `old.${column} is not new.${column}`).join(' or ');
    statements.push(
      `create trigger ${table}_report_insert after insert on ${table} begin
        ${rowStatement('sqlite', table, 'new', '0')}; end`,
      `create trigger ${table}_report_update after update of ${watched[table].join(', ')} on ${table}
        when ${changed} begin ${updateStatement('sqlite', table, '0')}; end`,
      `create trigger ${table}_report_delete after delete on ${table} begin
        ${rowStatement('sqlite', table, 'old', '0')}; end`,
    );
    if (table !== 'rewards')
      statements.push(
        `create trigger ${table}_report_children before delete on ${table} begin ${children[table]}; end`,
      );
  }
  statements.push(
    `create trigger programs_report_delete after delete on programs begin
      delete from report_counters where program_id = old.id; end`,
  );
  return statements;
}

function postgresTriggers(): string[] {
  const statements: string[] = [];
  const slot = slotOf('postgres');
  for (const table of Object.keys(watched) as Watched[]) {
    const fn = `vouch_report_${table}`;
    const changed = watched[table]
      .map((column) => `old.${column} is distinct from new.${column}`)
      .join(' or ');
    statements.push(
      `create function ${fn}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${rowStatement('postgres', table, 'new', slot)};
        elsif tg_op = 'DELETE' then ${rowStatement('postgres', table, 'old', slot)};
        else ${updateStatement('postgres', table, slot)};
        end if;
        return null;
      end $$`,
      `create trigger ${table}_report_write after insert or delete on ${table}
        for each row execute function ${fn}()`,
      `create trigger ${table}_report_update after update of ${watched[table].join(', ')} on ${table}
        for each row when (${changed}) execute function ${fn}()`,
    );
    if (table !== 'rewards')
      statements.push(
        `create function ${fn}_children() returns trigger language plpgsql as $$
        begin ${children[table]}; return old; end $$`,
        `create trigger ${table}_report_children before delete on ${table}
          for each row execute function ${fn}_children()`,
      );
  }
  statements.push(
    `create function vouch_report_programs() returns trigger language plpgsql as $$
    begin delete from report_counters where program_id = old.id; return null; end $$`,
    // At the commit: after every cascade of the program's removal has counted what it removed.
    `create constraint trigger programs_report_delete after delete on programs
      deferrable initially deferred for each row execute function vouch_report_programs()`,
  );
  return statements;
}

/** Every existing row counted once, as the triggers would have (slot 0), one table at a time. */
export async function backfill(db: Kysely<unknown>, dialect: Dialect) {
  for (const [table, counts] of Object.entries(countsOf)) {
    await sql
      .raw(addSums(dialect, selectsOf('r', counts(dialect, 'r', 1), `from ${table} r`), '0'))
      .execute(db);
  }
}
