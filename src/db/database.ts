import { Kysely, sql } from 'kysely';
import { openPostgres, type PostgresOptions } from './postgres.ts';
import { runPreparedImmediately } from './prepared.ts';
import { openSqlite } from './sqlite.ts';
import type { DB } from './tables.ts';
import { WriteBatcher } from './write-batcher.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
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

/** `sqlite:<path>`, `sqlite::memory:` or `postgres://…` (see config.ts). */
export async function openDatabase(url: string, options: PostgresOptions = {}): Promise<Database> {
  if (url.startsWith('sqlite:')) {
    const { dialect, runNow, runInTransaction } = openSqlite(url);
    const db = new Kysely<DB>({ dialect });
    runPreparedImmediately(db, runNow);
    // The batch's transaction holds the only connection: its prepared statements run at once.
    const batcher = new WriteBatcher(db, (trx) => runPreparedImmediately(trx, runInTransaction));
    return {
      db,
      dialect: 'sqlite',
      inWriteTransaction: (work) => batcher.run(work),
      ping: () => ping(db),
      close: () => db.destroy(),
    };
  }
  const { dialect, schema } = await openPostgres(url, options);
  const db = new Kysely<DB>({ dialect });
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
