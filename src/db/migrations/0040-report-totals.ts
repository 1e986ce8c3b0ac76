import { sql } from 'kysely';
import { B } from './0034-report-counters.counts.ts';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 26 and 30 (ADR 0124): every partner's, link's and referrer's all-time signups, sales and
 * revenue per currency, in order, so a ranking over any range of days reads the best owners first
 * and stops once no owner left can reach the figures found (counters.reports.repository.ts).
 *
 * SQLite only. The totals are kept from the per-day rows (`report_counters`) by triggers on that
 * table: whatever writes a day row moves its total by the same delta, in the same transaction.
 * PostgreSQL spreads hot figures over slots (ADR 0012); one row per owner there would serialise a
 * busy partner's sales again, so its rankings sum the day rows as before.
 */
const ranked = `new.owner_kind <> 'program' and new.metric in ('customers', 'sales', 'revenue')`;
const columns = 'program_id, owner_kind, owner_id, metric, currency, value, value_hi';
/** `lo + hi × 10^12` normalised as stored: the low part in [0, 10^12), the carry in the high part. */
const normalised = `((lo % ${B}) + ${B}) % ${B}, hi + (lo - ((lo % ${B}) + ${B}) % ${B}) / ${B}`;
const upsert = `on conflict (program_id, owner_kind, metric, currency, owner_id) do update set
  value = (report_totals.value + excluded.value) % ${B},
  value_hi = report_totals.value_hi + excluded.value_hi + (report_totals.value + excluded.value) / ${B}`;

/** Adds the delta `lo + hi × 10^12` of the day row `r` to its owner's total. */
const addDelta = (r: 'new' | 'old', lo: string, hi: string) => `
  insert into report_totals (${columns})
  select ${r}.program_id, ${r}.owner_kind, ${r}.owner_id, ${r}.metric, ${r}.currency, ${normalised}
  from (select ${lo} as lo, ${hi} as hi) as d where true ${upsert};`;

export const reportTotals: VouchMigration = {
  async up(db, dialect) {
    if (dialect !== 'sqlite') return;
    await db.schema
      .createTable('report_totals')
      .addColumn('program_id', 'bigint', (c) => c.notNull())
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'bigint', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('value_hi', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('report_totals_pk', [
        'program_id',
        'owner_kind',
        'metric',
        'currency',
        'owner_id',
      ])
      .modifyEnd(sql`without rowid`)
      .execute();
    // Best first: a ranking reads this index from its start.
    await sql`create index report_totals_ranking on report_totals
      (program_id, owner_kind, metric, currency, value_hi desc, value desc, owner_id)`.execute(db);
    for (const statement of [
      `create trigger report_counters_total_insert after insert on report_counters when ${ranked}
        begin ${addDelta('new', 'new.value', 'new.value_hi')} end`,
      `create trigger report_counters_total_update after update of value, value_hi on report_counters
        when ${ranked} begin ${addDelta('new', 'new.value - old.value', 'new.value_hi - old.value_hi')} end`,
      // A removed program's totals go with it (below), whichever of its triggers runs first.
      `create trigger report_counters_total_delete after delete on report_counters
        when ${ranked.replaceAll('new.', 'old.')} and exists (select 1 from programs where id = old.program_id)
        begin ${addDelta('old', '-old.value', '-old.value_hi')} end`,
      `create trigger programs_report_totals_delete after delete on programs begin
        delete from report_totals where program_id = old.id; end`,
    ])
      await sql.raw(statement).execute(db);
    await sql
      .raw(
        `insert into report_totals (${columns})
        select program_id, owner_kind, owner_id, metric, currency, ${normalised}
        from (
          select program_id, owner_kind, owner_id, metric, currency, sum(value) as lo, sum(value_hi) as hi
          from report_counters
          where owner_kind <> 'program' and metric in ('customers', 'sales', 'revenue')
          group by program_id, owner_kind, metric, currency, owner_id
        ) as s
        where lo <> 0 or hi <> 0`,
      )
      .execute(db);
  },
};
