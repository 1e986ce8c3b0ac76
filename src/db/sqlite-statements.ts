import type Database from 'better-sqlite3';

/**
 * better-sqlite3 statements as Vouch runs them: prepared once per SQL text, booleans bound as
 * 0/1, and money columns read exactly. Free of Kysely, so a thread that only reads (an export's
 * page readers, db/export-threads.ts) loads no more than it runs.
 */

const STATEMENT_CACHE_SIZE = 2000;

type Statement = Database.Statement<unknown[]>;

/** better-sqlite3 binds no booleans; store them as 0/1 like SQLite itself does. */
function bindable(parameters: readonly unknown[]): unknown[] {
  for (const value of parameters) {
    if (typeof value === 'boolean') return parameters.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  }
  return parameters as unknown[];
}

/**
 * Kysely prepares every statement again on every query; on this machine that halves the
 * throughput of a point read. This cache keeps prepared statements by SQL text.
 */
export function withStatementCache(raw: Database.Database, answersArrays: (sql: string) => boolean) {
  const cache = new Map<string, ReturnType<typeof wrap>>();
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = wrap(raw.prepare(sql), sql, raw, answersArrays(sql));
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * Result columns that may hold an integer: declared with an INTEGER affinity, or computed
 * (`sum(…)`, `count(*)`: no declared type). Text and real columns are left alone.
 */
function integerColumns(statement: Statement): { name: string; index: number; computed: boolean }[] {
  try {
    return statement
      .columns()
      .map((column, index) => ({ ...column, index }))
      .filter((column) => column.type === null || /int/i.test(column.type))
      .map((column) => ({ name: column.name, index: column.index, computed: column.type === null }));
  } catch {
    return [];
  }
}

/**
 * Integer columns that hold micro-units of one amount (up to 10^18), by name: every
 * `MicrosColumn` of db/domain-tables.ts and the modules' tables (a sale's `refunded_amount`, a
 * reward's `original_amount`, a payout's `total`, a coupon's `discount_amount`, a processor
 * sale's `refunded`). A counter's two parts (`value` < 10^12, `value_hi`) each fit a double
 * exactly by design (db/counter-parts.ts).
 */
const MONEY_COLUMNS = new Set([
  'amount',
  'refunded_amount',
  'original_amount',
  'total',
  'discount_amount',
  'refunded',
]);
const mayExceedDouble = (column: { name: string; computed: boolean }) =>
  column.computed || MONEY_COLUMNS.has(column.name);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

type Row = Record<string | number, unknown>;

/**
 * better-sqlite3 reads an integer beyond 2^53 as the nearest double, silently (micro-units of an
 * amount near 10^12 are 10^18). Statements that return a money column (or a computed one) are
 * read as they are, and read again with their integers as bigints when such a column came back
 * beyond 2^53 (where a double no longer tells the integer; below it, it is exact); integers a
 * double holds exactly go back to numbers, as on PostgreSQL (db/postgres.ts): callers see numbers
 * except where a number would be wrong, and a read pays for bigints only then (reading every
 * integer as a bigint cost a sixth of an export's read of its rows). A statement that writes
 * (`… returning`) runs once, so it reads its integers as bigints from the start.
 */
function exactReads(
  statement: Statement,
  arrays: boolean,
  prepareAgain: () => Statement,
):
  | {
      all(parameters: readonly unknown[]): unknown[];
      iterate(parameters: readonly unknown[]): Iterable<unknown>;
    }
  | undefined {
  if (!statement.reader) return undefined;
  const columns = integerColumns(statement);
  // Only money (micro-units) and computed sums can pass 2^53; ids, counts and booleans never do.
  const money = columns.filter(mayExceedDouble).map((column) => (arrays ? column.index : column.name));
  if (money.length === 0) return undefined;
  const integers = columns.map((column) => (arrays ? column.index : column.name));
  let exact: Statement | undefined = statement.readonly ? undefined : statement.safeIntegers(true);
  const exactStatement = () => {
    if (!exact) {
      exact = prepareAgain();
      if (arrays) exact.raw(true);
      exact.safeIntegers(true);
    }
    return exact;
  };
  const normalize = (rows: unknown[]) => {
    for (const row of rows as Row[]) {
      for (const key of integers) {
        const value = row[key];
        if (typeof value === 'bigint' && value <= MAX_SAFE && value >= MIN_SAFE) row[key] = Number(value);
      }
    }
    return rows;
  };
  const beyondDouble = (rows: unknown[]) => {
    for (const row of rows as Row[]) {
      for (const key of money) {
        const value = row[key];
        if (
          typeof value === 'number' &&
          (value > Number.MAX_SAFE_INTEGER || value < -Number.MAX_SAFE_INTEGER)
        )
          return true;
      }
    }
    return false;
  };
  return {
    all(parameters) {
      if (exact === statement) return normalize(statement.all(...parameters));
      const rows = statement.all(...parameters);
      return beyondDouble(rows) ? normalize(exactStatement().all(...parameters)) : rows;
    },
    *iterate(parameters) {
      for (const row of exactStatement().iterate(...parameters)) yield normalize([row])[0];
    },
  };
}

/**
 * The statement as Kysely calls it, built once per SQL text (the hot path allocates nothing); with
 * `arrays` (a statement marked `ARRAY_ROWS`, db/prepared.ts) it answers arrays of column values.
 */
function wrap(statement: Statement, sql: string, raw: Database.Database, arrays: boolean) {
  if (arrays) statement.raw(true);
  const exact = exactReads(statement, arrays, () => raw.prepare(sql));
  return {
    reader: statement.reader,
    all: exact
      ? (parameters: readonly unknown[]) => exact.all(bindable(parameters))
      : (parameters: readonly unknown[]) => statement.all(...bindable(parameters)),
    run: (parameters: readonly unknown[]) => {
      const result = statement.run(...bindable(parameters));
      return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
    },
    iterate: exact
      ? (parameters: readonly unknown[]) => exact.iterate(bindable(parameters))
      : (parameters: readonly unknown[]) => statement.iterate(...bindable(parameters)),
  };
}
