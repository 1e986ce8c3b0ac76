import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { ARRAY_ROWS } from './prepared.ts';
import { SqliteDatabase } from './sqlite-driver.ts';
import { withStatementCache } from './sqlite-statements.ts';

/** Write transactions take the write lock up front, so two processes never deadlock upgrading. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class VouchSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** `sqlite:./data/vouch.db` or `sqlite::memory:`. */
export interface SqliteHandle {
  dialect: SqliteDialect;
  raw: SqliteDatabase;
  /** The database file (absent in memory). */
  file?: string;
  /** Runs a cached statement now, synchronously, unless a transaction holds the connection. */
  runNow(sql: string, parameters: readonly unknown[]): { ran: false } | { ran: true; rows: unknown[] };
  /** Runs a cached statement now, synchronously: for the holder of the open transaction only. */
  runInTransaction(sql: string, parameters: readonly unknown[]): { ran: true; rows: unknown[] };
}

export function openSqlite(url: string): SqliteHandle {
  const path = url.slice('sqlite:'.length);
  const memory = path === ':memory:';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const raw = new SqliteDatabase(memory ? ':memory:' : path);
  raw.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a crash of the process; FULL would also survive power loss at
  // the price of an fsync per commit that blocks the event loop (docs/adr/0005-sqlite-durability.md).
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  raw.pragma('cache_size = -65536');
  raw.pragma('temp_store = MEMORY');
  const database = withStatementCache(raw, (sql) => sql.startsWith(ARRAY_ROWS));
  const run = (sql: string, parameters: readonly unknown[]) => {
    const statement = database.prepare(sql);
    if (statement.reader) return { ran: true as const, rows: statement.all(parameters) };
    statement.run(parameters);
    return { ran: true as const, rows: [] };
  };
  return {
    dialect: new VouchSqliteDialect({ database: database as unknown as SqliteDialectConfig['database'] }),
    raw,
    ...(memory ? {} : { file: path }),
    runNow(sql, parameters) {
      // Inside someone's open transaction a read would see its uncommitted rows: wait in line.
      if (raw.inTransaction) return { ran: false };
      return run(sql, parameters);
    },
    runInTransaction: run,
  };
}
