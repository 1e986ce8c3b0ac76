import { availableParallelism } from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CompiledQuery, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { CsvWrite } from '../core/csv.ts';
import type { Database } from './database.ts';
import {
  CsvChunk,
  namesOfExport,
  type PageColumn,
  type PagePlan,
  pageStatement,
  type RowKey,
  type RunRows,
  writePage,
} from './export-csv-page.ts';
import { EXPORT_PAGE, type ExportRange } from './export-pages.ts';
import { type CsvPage, pagesInThreads, READERS } from './export-threads.ts';
import { ARRAY_ROWS, compileNamed, type ParamOf } from './prepared.ts';
import { bindTemplate, type StatementTemplate } from './statement-template.ts';
import type { DB } from './tables.ts';

/**
 * An export of a table's rows as CSV records (issue 26), for tables of millions of rows: each
 * field is a column of the row written as the file says (`CsvWrite`), or the id of another row
 * written as that row's name (a partner's public id, looked up once per export and id, not
 * joined on every row). Rows come in creation order, in keyset pages on the table's
 * `(program_id, created_at, id)` index, read as arrays. On SQLite, the whole program's rows (no
 * filter but the dates) are read by two threads at once (db/export-threads.ts, ADR 0145);
 * otherwise a page at a time here, a turn of the event loop between pages.
 */

/**
 * The rows of a table the caller names at run time. Kysely's types follow a table named in the
 * code, not one of a union: its rows are typed as that table's, with their columns named by the
 * caller (`sql.ref`).
 */
function from<T extends ProgramTable>(db: Kysely<DB>, table: T) {
  return db.selectFrom(table) as unknown as SelectQueryBuilder<DB, T, object>;
}

/** Tables with rows of one program in creation order. */
type ProgramTable = {
  [T in keyof DB & string]: DB[T] extends { program_id: unknown; created_at: unknown; id: unknown }
    ? T
    : never;
}[keyof DB & string];

type ColumnOf<T extends ProgramTable> = keyof DB[T] & string;

/** Rows of `T` that a filter keeps. */
type Where<T extends ProgramTable, Filter> = (
  query: SelectQueryBuilder<DB, T, object>,
  filter: Filter,
) => SelectQueryBuilder<DB, T, object>;

export interface CsvTableDefinition<T extends ProgramTable, Filter> {
  table: T;
  /** Columns holding the id of another row of the program, and the column written instead. */
  names?: Partial<Record<ColumnOf<T>, { table: ProgramTable; column: string }>>;
  where: Where<T, Filter>;
}

/** A field of the file: a column, written as `write`. */
export interface CsvColumn<Column extends string> {
  column: Column;
  write: CsvWrite;
}

/** An opened export: its records page by page (without the header), and how many rows it has. */
export interface CsvRows {
  pages(): AsyncGenerator<CsvPage>;
  count(): Promise<number>;
}

export interface CsvTable<Column extends string, Filter> {
  open(
    database: Database,
    programId: number,
    filter: Filter,
    range: ExportRange,
    fields: readonly CsvColumn<Column>[],
  ): CsvRows;
}

type Key = {
  loAt: string;
  loId: number;
  hiAt: string;
  hiId: number;
  from: string;
  until: string;
  skip: number;
};

export function csvTable<T extends ProgramTable, Filter extends object>(
  definition: CsvTableDefinition<T, Filter>,
): CsvTable<ColumnOf<T>, Filter> {
  return {
    open(database, programId, filter, range, fields) {
      const { plan, count } = planOf(definition, database, programId, filter, range, fields);
      // Reader threads take a whole program's rows (no filter but the dates), the exports of
      // millions: their pages end where the program's index says, so a filter's pages would be
      // mostly empty. With one core, a second reader would only take turns with the first.
      const whole = Object.values(filter).every((value) => value === undefined);
      return {
        pages: () =>
          database.file !== undefined && whole && availableParallelism() >= READERS
            ? pagesInThreads(database.file, plan)
            : pagesHere(database.db, database.dialect, plan),
        count: async () => {
          const [row] = await runOn(database.db)(count.sql, bindTemplate(count, plan.bound));
          return Number(row?.[0] ?? 0);
        },
      };
    },
  };
}

const ref = (table: ProgramTable, column: string) => sql.ref(`${table}.${column}`);
// Selected under its own name: SQLite's driver reads money columns exactly by name (sqlite-statements.ts).
const as = (table: ProgramTable, column: string) => ref(table, column).as(column);

/** The program's rows of `table` in the range, after `lo` and up to `hi` when those are named. */
function inRange<T extends ProgramTable, O>(
  table: T,
  query: SelectQueryBuilder<DB, T, O>,
  range: ExportRange,
  param: ParamOf<Key>,
  bounds: { lo?: true; hi?: true },
) {
  const createdAt = ref(table, 'created_at');
  const id = ref(table, 'id');
  let ranged = query;
  if (range.from !== undefined) ranged = ranged.where(sql<boolean>`${createdAt} >= ${param('from')}`);
  if (range.until !== undefined) ranged = ranged.where(sql<boolean>`${createdAt} < ${param('until')}`);
  if (bounds.lo)
    ranged = ranged.where(sql<boolean>`(${createdAt}, ${id}) > (${param('loAt')}, ${param('loId')})`);
  if (bounds.hi)
    ranged = ranged.where(sql<boolean>`(${createdAt}, ${id}) <= (${param('hiAt')}, ${param('hiId')})`);
  return ranged.orderBy(createdAt).orderBy(id);
}

const rowsOf = <T extends ProgramTable>(db: Kysely<DB>, table: T, programId: number) =>
  from(db, table).where(ref(table, 'program_id'), '=', programId);

/** A statement compiled once per export, its rows read as arrays. */
function arrayTemplate<T extends ProgramTable>(
  db: Kysely<DB>,
  build: (db: Kysely<DB>, param: ParamOf<Key>) => SelectQueryBuilder<DB, T, object>,
): StatementTemplate {
  const { template } = compileNamed<unknown, Key>(db, build);
  return { ...template, sql: ARRAY_ROWS + template.sql };
}

/**
 * The statements and fields of one export, as the thread that reads its pages needs them, and
 * the statement that counts its rows.
 */
function planOf<T extends ProgramTable, Filter>(
  definition: CsvTableDefinition<T, Filter>,
  database: Database,
  programId: number,
  filter: Filter,
  range: ExportRange,
  fields: readonly CsvColumn<ColumnOf<T>>[],
): { plan: PagePlan; count: StatementTemplate } {
  const { db } = database;
  const { table } = definition;
  // Every page row is `id, created_at`, then each other column the fields name, once.
  const selected: ColumnOf<T>[] = [
    'id',
    'created_at',
    ...new Set(
      fields.map((field) => field.column).filter((column) => column !== 'id' && column !== 'created_at'),
    ),
  ];
  const filtered = (db: Kysely<DB>) => definition.where(rowsOf(db, table, programId), filter);
  const page = (bounds: { lo?: true; hi?: true }) =>
    arrayTemplate(db, (db, param) => {
      const rows = filtered(db).select(selected.map((column) => as(table, column)));
      const ranged = inRange(table, rows, range, param, bounds);
      return bounds.hi ? ranged : ranged.limit(EXPORT_PAGE);
    });
  // Where a page ends, on the index alone: the program's rows in the range, with no filter.
  const span = (bounds: { lo?: true }) =>
    arrayTemplate(db, (db, param) =>
      inRange(
        table,
        rowsOf(db, table, programId).select([as(table, 'created_at'), as(table, 'id')]),
        range,
        param,
        bounds,
      )
        .limit(1)
        .offset(param('skip')),
    );
  const lookUps = selected.flatMap((column) => {
    const named = definition.names?.[column];
    return named ? [{ column, of: named }] : [];
  });
  const plan: PagePlan = {
    pageSize: EXPORT_PAGE,
    // The range is bound, not written into the statements: their own texts become literals
    // on SQLite (db/sqlite-constants.ts), and the range differs from one export to the next.
    bound: { ...range },
    page: {
      first: page({}),
      after: page({ lo: true }),
      firstUntil: page({ hi: true }),
      between: page({ lo: true, hi: true }),
    },
    span: { first: span({}), after: span({ lo: true }) },
    names: lookUps.map(({ of }) => namesTemplate(db, database.dialect, programId, of.table, of.column)),
    columns: fields.map((field): PageColumn => {
      const named = lookUps.findIndex((lookUp) => lookUp.column === field.column);
      return { at: selected.indexOf(field.column), write: field.write, ...(named === -1 ? {} : { named }) };
    }),
  };
  const count = arrayTemplate(db, (db, param) =>
    inRange(table, filtered(db), range, param, {}).clearOrderBy().select(sql<number>`count(*)`.as('n')),
  );
  return { plan, count };
}

/** Runs a compiled statement on the server's thread, its rows as arrays. */
const runOn =
  (db: Kysely<DB>): RunRows =>
  async (text, parameters) =>
    (await db.executeQuery<unknown[]>(CompiledQuery.raw(text, [...parameters]))).rows;

/**
 * `id, <column>` of the rows of `table` whose ids are `ids`: a JSON array on SQLite, walked in
 * order, each id sought by primary key (a cross join keeps that order: SQLite otherwise scanned
 * the program's rows, all 100,000 partners of the bench for each page, a seventh of a reader's
 * time); an array on PostgreSQL.
 */
function namesTemplate(
  db: Kysely<DB>,
  dialect: Database['dialect'],
  programId: number,
  table: ProgramTable,
  column: string,
): StatementTemplate {
  const id = sql.ref(`${table}.id`);
  const { template } = compileNamed<unknown, { ids: string | readonly number[] }>(db, (db, param) => {
    const matching =
      dialect === 'sqlite'
        ? (
            db
              .selectFrom(sql<{ value: number }>`json_each(${param('ids')})`.as('wanted'))
              .crossJoin(table) as unknown as SelectQueryBuilder<DB, ProgramTable, object>
          ).where(sql<boolean>`${id} = wanted.value`)
        : from(db, table).where(sql<boolean>`${id} = any(${param('ids')})`);
    return matching
      .select([id.as('id'), sql.ref(`${table}.${column}`).as('name')])
      .where(sql.ref(`${table}.program_id`), '=', programId);
  });
  return { ...template, sql: ARRAY_ROWS + template.sql };
}

/** The pages read on this thread, one after the other, a turn of the event loop between them. */
async function* pagesHere(
  db: Kysely<DB>,
  dialect: Database['dialect'],
  plan: PagePlan,
): AsyncGenerator<CsvPage> {
  const run = runOn(db);
  const names = namesOfExport(plan, run, (ids) => (dialect === 'sqlite' ? JSON.stringify(ids) : ids));
  const chunk = new CsvChunk();
  let lo: RowKey | undefined;
  for (;;) {
    const { template, params } = pageStatement(plan, lo, undefined);
    const rows = await run(template.sql, bindTemplate(template, params));
    const written = await writePage(rows, plan, names, chunk);
    const bytes = chunk.take();
    if (bytes.length > 0) yield { bytes, rows: written };
    const last = rows.at(-1);
    if (rows.length < plan.pageSize || !last) return;
    lo = [String(last[1]), Number(last[0])];
    await nextTurn();
  }
}
