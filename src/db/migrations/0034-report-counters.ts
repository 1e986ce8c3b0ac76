import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.ts';
import {
  B,
  buyerLinkSelects,
  countsOf,
  rowContributions,
  selectsOf,
  type Watched,
  watched,
} from './0034-report-counters.counts.ts';
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
