import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { isPostgres } from './counter-slots.ts';
import { sqliteConstantTexts } from './sqlite-constants.ts';
import { bindTemplate, type StatementTemplate } from './statement-template.ts';
import type { DB } from './tables.ts';

/**
 * Queries of the hot path, compiled once instead of on every call: Kysely builds and compiles
 * the SQL anew on each query, which is a quarter of a point read's cost here. A compiled query
 * is kept per dialect adapter, which a transaction shares with its database (a transaction is a
 * new Kysely instance), so it stays compiled inside transactions too. On PostgreSQL the same SQL
 * text then also becomes one named statement per connection (postgres.ts); on SQLite it runs at
 * once outside transactions (`runPreparedImmediately`).
 *
 * Parameters are named: the builder writes `param('programId')` where a value goes, and each
 * call passes `{ programId, … }`. Values the builder writes itself (`'ok'`, `0`) stay as they
 * were compiled.
 *
 *     const selectLink = definePreparedQuery<LinkRow, { programId: number; key: string }>(
 *       (db, param) => db.selectFrom('referral_links').selectAll()
 *         .where('program_id', '=', param('programId')).where('key', '=', param('key')),
 *     );
 *     await selectLink(db, { programId, key });
 */
export interface PreparedQuery<Row, Params extends object> {
  (db: Kysely<DB>, params: Params): Promise<Row[]>;
  /** The statement with its values, not run: for `executeTogether` (db/together.ts). */
  statement(db: Kysely<DB>, params: Params): BoundStatement;
}

/** Compiled SQL and the values of its positional placeholders. */
export interface BoundStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** Stands for a named parameter while the query is built; compiled into a positional placeholder. */
class NamedParameter {
  constructor(readonly name: string) {}
}

/** Where a named parameter is used: the value of that name, typed as the builder needs it. */
export type ParamOf<Params extends object> = <Name extends keyof Params & string>(name: Name) => Params[Name];

const param = ((name: string) => new NamedParameter(name)) as ParamOf<Record<string, never>>;

/** A query compiled once, and how a call's named values fill its positional placeholders. */
export interface CompiledNamedQuery<Row, Params extends object> {
  query: CompiledQuery<Row>;
  /** The same as plain data, for a thread that binds and runs it without Kysely. */
  template: StatementTemplate;
  bind(params: Params): unknown[];
}

/**
 * Compiles the query `build` makes on `db`'s dialect. Each placeholder of the compiled query is
 * either a named parameter (one name may fill several) or a value the builder wrote itself,
 * which every call keeps.
 */
const constantTexts = sqliteConstantTexts();

export function compileNamed<Row, Params extends object>(
  db: Kysely<DB>,
  build: (db: Kysely<DB>, param: ParamOf<Params>) => Compilable<Row>,
): CompiledNamedQuery<Row, Params> {
  // On SQLite the builder's own texts become literals (db/sqlite-constants.ts).
  const builder = isPostgres(db) ? db : db.withPlugin(constantTexts);
  const query = build(builder, param as ParamOf<Params>).compile();
  const template = templateOf(query);
  return {
    query,
    template,
    bind: (params) => bindTemplate(template, params as Record<string, unknown>),
  };
}

function templateOf(query: CompiledQuery<unknown>): StatementTemplate {
  return {
    sql: query.sql,
    names: query.parameters.map((value) => (value instanceof NamedParameter ? value.name : null)),
    values: query.parameters.map((value) => (value instanceof NamedParameter ? null : value)),
  };
}

export function definePreparedQuery<Row, Params extends object>(
  build: (db: Kysely<DB>, param: ParamOf<Params>) => Compilable<Row>,
  options: { plan?: 'cached' | 'each-call' } = {},
): PreparedQuery<Row, Params> {
  return prepared(build, options.plan === 'each-call' ? PLANNED_EACH_CALL : '');
}

/** A prepared query with one list of values (an `in (…)` list) besides its named parameters. */
export type PreparedListQuery<Row, Params extends object, Value> = (
  db: Kysely<DB>,
  params: Params,
  list: readonly Value[],
) => Promise<Row[]>;

/**
 * A prepared query (as `definePreparedQuery`) over a list of values of any length: `build` gets
 * the list as placeholders. It is compiled once per power of two, the list padded to that length
 * by repeating its last value (which an `in (…)` list reads as the same list), so a few
 * statements serve every length. An empty list answers no rows without a statement.
 */
export function definePreparedListQuery<Row, Params extends object, Value>(
  build: (db: Kysely<DB>, param: ParamOf<Params>, list: readonly Value[]) => Compilable<Row>,
): PreparedListQuery<Row, Params, Value> {
  const bySize = new Map<number, PreparedQuery<Row, Record<string, unknown>>>();
  return async (db, params, list) => {
    const last = list.at(-1);
    if (last === undefined) return [];
    let size = 1;
    while (size < list.length) size *= 2;
    let query = bySize.get(size);
    if (!query) {
      query = prepared<Row, Record<string, unknown>>(
        (db, param) =>
          build(
            db,
            param as unknown as ParamOf<Params>,
            Array.from({ length: size }, (_, i) => param(`listItem${i}`) as Value),
          ),
        '',
      );
      bySize.set(size, query);
    }
    const values: Record<string, unknown> = { ...(params as Record<string, unknown>) };
    for (let i = 0; i < size; i++) values[`listItem${i}`] = i < list.length ? list[i] : last;
    return query(db, values);
  };
}

/**
 * Starts the text of a statement PostgreSQL plans on every call, with the call's values, instead
 * of naming it once. For a statement where two indexes tie while its table is small: a plan
 * cached then (PostgreSQL keeps a generic plan once it costs no more than the first five calls')
 * is kept as the table grows, until statistics are refreshed, which never happens with
 * autovacuum off. Planned with the values, the unique index that names the row wins (ADR 0052).
 */
export const PLANNED_EACH_CALL = '/* planned each call */ ';

/**
 * Rows of `table`, every one of `columns` given, as one multi-row insert not run: to go with
 * other writes in one statement (db/together.ts). No ON CONFLICT: a taken unique value aborts the
 * statement. One prepared statement per number of rows.
 */
export function defineRowsInsert<Row extends object>(
  table: keyof DB & string,
  columns: readonly (keyof Row & string)[],
) {
  const byCount = new Map<number, PreparedQuery<never, Record<string, unknown>>>();
  return (db: Kysely<DB>, rows: readonly Row[]): BoundStatement[] => {
    if (rows.length === 0) return [];
    let query = byCount.get(rows.length);
    if (!query) {
      query = definePreparedQuery<never, Record<string, unknown>>((db, param) =>
        db
          .insertInto(table)
          .values(
            Array.from(
              { length: rows.length },
              (_, i) =>
                Object.fromEntries(columns.map((column) => [column, param(`${column}${i}`)])) as never,
            ),
          ),
      );
      byCount.set(rows.length, query);
    }
    const params: Record<string, unknown> = {};
    rows.forEach((row, i) => {
      for (const column of columns) params[`${column}${i}`] = row[column];
    });
    return [query.statement(db, params)];
  };
}

/**
 * Starts the text of a statement whose rows come back as arrays of their column values, in the
 * order selected, instead of objects: db/sqlite.ts reads it in better-sqlite3's raw mode,
 * db/postgres.ts with pg's `rowMode: 'array'`. Both drivers build an object property by
 * property; for thousands of rows (an export) that costs several times the statement itself.
 */
export const ARRAY_ROWS = '/* rows as arrays */ ';

/**
 * A prepared query (as `definePreparedQuery`) whose rows are arrays of the selected columns, in
 * select order: `Row` is the tuple of their types.
 *
 *     const selectItems = definePreparedArrayQuery<[id: number, email: string | null], { payoutId: number }>(
 *       (db, param) => db.selectFrom('payout_items').select(['id', 'partner_email'])…,
 *     );
 */
export function definePreparedArrayQuery<Row extends readonly unknown[], Params extends object>(
  // biome-ignore lint/suspicious/noExplicitAny: the builder's object row type says nothing of the tuple.
  build: (db: Kysely<DB>, param: ParamOf<Params>) => Compilable<any>,
): PreparedQuery<Row, Params> {
  return prepared<Row, Params>(build, ARRAY_ROWS);
}

function prepared<Row, Params extends object>(
  build: (db: Kysely<DB>, param: ParamOf<Params>) => Compilable<unknown>,
  prefix: string,
): PreparedQuery<Row, Params> {
  const compiled = new WeakMap<object, CompiledNamedQuery<Row, Params>>();
  const compiledFor = (db: Kysely<DB>) => {
    const key = db.getExecutor().adapter;
    let entry = compiled.get(key);
    if (!entry) {
      const named = compileNamed(db, build as (db: Kysely<DB>, param: ParamOf<Params>) => Compilable<Row>);
      entry = prefix === '' ? named : { ...named, query: { ...named.query, sql: prefix + named.query.sql } };
      compiled.set(key, entry);
    }
    return entry;
  };
  const run = async (db: Kysely<DB>, params: Params) => {
    const entry = compiledFor(db);
    const parameters = entry.bind(params);
    const rows = runImmediately(db, entry.query.sql, parameters);
    if (rows) return rows as Row[];
    return (await db.executeQuery<Row>({ ...entry.query, parameters })).rows;
  };
  return Object.assign(run, {
    statement: (db: Kysely<DB>, params: Params): BoundStatement => {
      const entry = compiledFor(db);
      return { sql: entry.query.sql, parameters: entry.bind(params) };
    },
  });
}

/** The rows, when the database could answer at once; undefined when it goes through Kysely. */
function runImmediately(db: Kysely<DB>, sql: string, parameters: readonly unknown[]): unknown[] | undefined {
  const direct = immediateRunners.get(db)?.(sql, parameters);
  return direct?.ran ? direct.rows : undefined;
}

type ImmediateRunner = (
  sql: string,
  parameters: readonly unknown[],
) => { ran: false } | { ran: true; rows: unknown[] };

/**
 * SQLite answers synchronously, so a prepared query outside any transaction can run at once
 * instead of queueing on Kysely's connection lock through several promise hops: a point read
 * then costs a fifth of what it does through the executor. Registered for a database's own
 * Kysely instance only (keyed by it, so each database has its own); transactions (other
 * instances) always go through Kysely.
 */
const immediateRunners = new WeakMap<Kysely<DB>, ImmediateRunner>();

export function runPreparedImmediately(db: Kysely<DB>, runner: ImmediateRunner): void {
  immediateRunners.set(db, runner);
}
