import { Kysely, type LogConfig, sql } from 'kysely';
import { stopExportReaders } from './export-threads.ts';
import { openPostgres, type PostgresOptions } from './postgres.ts';
import { runPreparedImmediately } from './prepared.ts';
import { openSqlite } from './sqlite.ts';
import { sqliteLimits } from './sqlite-limits.ts';
import type { DB } from './tables.ts';
import { WriteBatcher } from './write-batcher.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** The SQLite database's file, which other threads open to read (absent in memory and on PostgreSQL). */
  file?: string;
  /** PostgreSQL schema of this database when the URL names one (`?schema=`). */
  schema?: string;
  /**
   * Runs `work` in a write transaction. On SQLite, writes that arrive together share one commit,
   * each in its own savepoint (write-batcher.ts); on PostgreSQL each runs alone.
   */
  inWriteTransaction<T>(work: (trx: Kysely<DB>) => Promise<T>): Promise<T>;
  /** Answers whether the database responds (for `/health`). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A statement the database refused, as the connection reported it. */
export interface FailedQuery {
  sql: string;
  error: unknown;
}

export interface DatabaseOptions extends PostgresOptions {
  /**
   * Told of every statement that failed in the database. Expected outcomes (a taken key, a
   * replay, a buyer changed meanwhile) are answered without one (ADR 0053), so a test can hold
   * the app to that.
   */
  onFailedQuery?: (failure: FailedQuery) => void;
}

/** Kysely's log, only to report failed statements (no cost per query without a listener). */
function failureLog(onFailedQuery: DatabaseOptions['onFailedQuery']): { log?: LogConfig } {
  if (!onFailedQuery) return {};
  return {
    log: (event) => {
      if (event.level === 'error') onFailedQuery({ sql: event.query.sql, error: event.error });
    },
  };
}

/** `sqlite:<path>`, `sqlite::memory:` or `postgres://…` (see config.ts). */
export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<Database> {
  const { onFailedQuery, ...postgresOptions } = options;
  if (url.startsWith('sqlite:')) {
    const { dialect, runNow, runInTransaction, file } = openSqlite(url);
    const db = new Kysely<DB>({ dialect, plugins: [sqliteLimits()], ...failureLog(onFailedQuery) });
    // Statements run at once bypass Kysely, and so its log.
    const reported = <Ran>(run: (sql: string, parameters: readonly unknown[]) => Ran) =>
      onFailedQuery
        ? (sql: string, parameters: readonly unknown[]) => {
            try {
              return run(sql, parameters);
            } catch (error) {
              onFailedQuery({ sql, error });
              throw error;
            }
          }
        : run;
    runPreparedImmediately(db, reported(runNow));
    // The batch's transaction holds the only connection: its prepared statements run at once.
    const batcher = new WriteBatcher(db, (trx) => runPreparedImmediately(trx, reported(runInTransaction)));
    return {
      db,
      dialect: 'sqlite',
      ...(file === undefined ? {} : { file }),
      inWriteTransaction: (work) => batcher.run(work),
      ping: () => ping(db),
      close: async () => {
        if (file !== undefined) await stopExportReaders(file);
        await db.destroy();
      },
    };
  }
  const { dialect, schema } = await openPostgres(url, postgresOptions);
  const db = new Kysely<DB>({ dialect, ...failureLog(onFailedQuery) });
  return {
    db,
    dialect: 'postgres',
    ...(schema ? { schema } : {}),
    inWriteTransaction: (work) => db.transaction().execute(work),
    ping: () => ping(db),
    close: () => db.destroy(),
  };
}

async function ping(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
