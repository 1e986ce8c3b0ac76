import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Runs `work` in a write transaction: on SQLite batched with concurrent sales into one commit,
 * each in its own savepoint (the database handle's write batcher, db/write-batcher.ts); alone on
 * PostgreSQL.
 */
export function inWriteTransaction<T>(database: Database, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return database.inWriteTransaction(work);
}
