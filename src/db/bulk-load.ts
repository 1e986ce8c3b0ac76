import type BetterSqlite from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { COUNTER_BASE, carryingUpdate, splitCounterDelta } from './counter-parts.ts';
import { isPostgres } from './counter-slots.ts';
import type { Database } from './database.ts';
import { openSqlite } from './sqlite.ts';
import type { DB } from './tables.ts';

/**
 * Bulk loads for `vouch seed`: many generated rows with explicit ids, written the fastest way each
 * database allows. The caller generates rows; how they reach the tables is decided here.
 */

/** One row's values in column order; booleans are stored as 0/1 on SQLite. */
export type BulkRow = readonly (string | number | bigint | boolean | null)[];

/** A counter row `[program, kind, owner, metric, value]`. */
export type CounterRow = readonly [number, string, number, string, bigint | number];

export interface BulkWriter {
  /** Starts the load into these tables (SQLite file: one transaction, their indexes set aside). */
  begin(tables: readonly string[]): Promise<void>;
  insert(table: string, columns: readonly string[], rows: readonly BulkRow[]): Promise<void>;
  /** Adds to `entity_counters`, creating rows as needed. */
  addCounters(rows: readonly CounterRow[]): Promise<void>;
  /** Ends the load: indexes rebuilt and committed (SQLite file); identities moved past the explicit ids (PostgreSQL). */
  finish(tables: readonly string[]): Promise<void>;
  close(): void;
}

/** Bound values per multi-row SQLite statement (well under SQLite's limit of 32,766). */
const MAX_SQLITE_VARIABLES = 2_000;
/** Bound values per multi-row statement through Kysely. */
const MAX_VARIABLES = 30_000;

/** The counter value split into its stored parts (db/counter-parts.ts). */
const splitFigure = ([program, kind, owner, metric, value]: CounterRow): BulkRow => [
  program,
  kind,
  owner,
  metric,
  ...splitCounterDelta(value),
];

/** A SQLite file gets its own connection and prepared statements; anything else goes through Kysely. */
export function openBulkWriter(database: Database, databaseUrl: string): BulkWriter {
  const onFile = database.dialect === 'sqlite' && !databaseUrl.endsWith(':memory:');
  return onFile ? sqliteFileWriter(databaseUrl) : kyselyWriter(database.db);
}

/** The id after the largest one in `table` (explicit ids let generated rows reference each other). */
export async function nextFreeId(
  db: Kysely<DB>,
  table: 'partners' | 'customers' | 'referral_links' | 'transactions' | 'subscribers',
): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

/** PostgreSQL: moves `table`'s identity past the explicit ids a load wrote; SQLite needs nothing. */
export async function moveIdentityPastRows(db: Kysely<DB>, table: string): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(
    db,
  );
}

const bindable = (row: BulkRow) => row.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));

function sqliteFileWriter(url: string): BulkWriter {
  const { raw } = openSqlite(url);
  // Generated rows reference only rows generated before them; checking each reference would cost a
  // lookup per column per row.
  raw.pragma('foreign_keys = OFF');
  let setAside: { name: string; sql: string }[] = [];
  const statements = new Map<string, BetterSqlite.Statement>();
  const statement = (text: string) => {
    let prepared = statements.get(text);
    if (!prepared) {
      prepared = raw.prepare(text);
      statements.set(text, prepared);
    }
    return prepared;
  };
  // Many rows per statement: one call into the driver per few hundred rows instead of one per row.
  const insertMany = (head: string, width: number, rows: readonly BulkRow[], tail = '') => {
    const tuple = `(${Array(width).fill('?').join(', ')})`;
    const perStatement = Math.max(1, Math.floor(MAX_SQLITE_VARIABLES / width));
    raw.transaction(() => {
      for (let from = 0; from < rows.length; from += perStatement) {
        const slice = rows.slice(from, from + perStatement);
        const text = `${head} values ${Array(slice.length).fill(tuple).join(', ')} ${tail}`;
        statement(text).run(slice.flatMap(bindable));
      }
    })();
  };
  return {
    async insert(table, columns, rows) {
      insertMany(`insert into ${table} (${columns.join(', ')})`, columns.length, rows);
    },
    async addCounters(rows) {
      const upsert = statement(
        `insert into entity_counters (program_id, owner_kind, owner_id, metric, value, value_hi)
         values (?, ?, ?, ?, ?, ?)
         on conflict (program_id, owner_kind, owner_id, metric, slot) do update set
           value = (value + excluded.value) % ${COUNTER_BASE},
           value_hi = value_hi + excluded.value_hi + (value + excluded.value) / ${COUNTER_BASE}`,
      );
      raw.transaction(() => {
        for (const row of rows) upsert.run(...bindable(splitFigure(row)));
      })();
    },
    // A bulk load into indexed tables is mostly random B-tree inserts; building each index once,
    // after the rows, sorts instead. All of it is one transaction, so a failed load leaves the
    // database as it was, indexes included.
    async begin(tables) {
      raw.exec('begin immediate');
      const placeholders = tables.map(() => '?').join(', ');
      setAside = raw
        .prepare<unknown[], { name: string; sql: string }>(
          `select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in (${placeholders})`,
        )
        .all(...tables);
      for (const index of setAside) raw.exec(`drop index "${index.name}"`);
    },
    async finish() {
      for (const index of setAside) raw.exec(index.sql);
      raw.exec('commit');
    },
    close: () => {
      if (raw.inTransaction) raw.exec('rollback');
      raw.close();
    },
  };
}

/** Multi-row inserts through Kysely: PostgreSQL, and in-memory SQLite (one connection only). */
function kyselyWriter(db: Kysely<DB>): BulkWriter {
  const inBatches = async (
    statement: (values: ReturnType<typeof sql.join>) => ReturnType<typeof sql>,
    rows: readonly BulkRow[],
  ) => {
    const size = Math.max(1, Math.floor(MAX_VARIABLES / (rows[0]?.length ?? 1)));
    for (let i = 0; i < rows.length; i += size) {
      const values = sql.join(rows.slice(i, i + size).map((row) => sql`(${sql.join([...row])})`));
      await statement(values).execute(db);
    }
  };
  const carrying = carryingUpdate('entity_counters');
  return {
    async begin() {},
    async insert(table, columns, rows) {
      await inBatches(
        (values) =>
          sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) values ${values}`,
        rows,
      );
    },
    async addCounters(rows) {
      await inBatches(
        (values) =>
          sql`insert into entity_counters (program_id, owner_kind, owner_id, metric, value, value_hi)
              values ${values}
              on conflict (program_id, owner_kind, owner_id, metric, slot)
              do update set ${sql.join([sql`value = ${carrying.value}`, sql`value_hi = ${carrying.value_hi}`])}`,
        rows.map(splitFigure),
      );
    },
    async finish(tables) {
      for (const table of tables) await moveIdentityPastRows(db, table);
    },
    close: () => {},
  };
}
