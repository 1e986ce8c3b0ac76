import { type Kysely, sql } from 'kysely';
import type { DB } from './tables.ts';

/**
 * Runs `work` inside a savepoint of the caller's transaction: when it throws, only its own writes
 * are rolled back and the transaction stays usable. PostgreSQL aborts a whole transaction on any
 * error (a unique violation lost to a concurrent insert, say) unless a savepoint contains it.
 */
export async function withSavepoint<T>(trx: Kysely<DB>, work: () => Promise<T>): Promise<T> {
  // One name serves nested savepoints too: both databases release or roll back the newest one.
  const name = sql.raw('vouch_nested');
  await sql`savepoint ${name}`.execute(trx);
  try {
    const value = await work();
    await sql`release savepoint ${name}`.execute(trx);
    return value;
  } catch (error) {
    await sql`rollback to savepoint ${name}`.execute(trx);
    await sql`release savepoint ${name}`.execute(trx);
    throw error;
  }
}
