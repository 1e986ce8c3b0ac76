import type { Kysely } from 'kysely';
import { isPostgres } from './counter-slots.ts';
import type { Dialect } from './database.ts';
import type { DB } from './tables.ts';

/**
 * How the data layer takes row locks and picks a write strategy, so that no service looks at the
 * dialect. SQLite's write transaction already excludes every other writer: a row lock there is a
 * no-op. PostgreSQL holds the rows until the transaction ends.
 */

/** A select that can lock what it reads (Kysely's SelectQueryBuilder). */
interface Lockable<Q> {
  forUpdate(): Q;
}

/** `query`, locking the rows it reads on PostgreSQL (FOR UPDATE), unchanged on SQLite. */
export function forUpdate<Q extends Lockable<Q>>(db: Kysely<DB>, query: Q): Q {
  return isPostgres(db) ? query.forUpdate() : query;
}

/**
 * Locks the rows `select` names until the transaction ends (PostgreSQL); on SQLite it runs
 * nothing. For paths that must decide one at a time (payouts, refunds, a buyer's sales).
 */
export async function lockRows<Q extends Lockable<Q> & { execute(): Promise<unknown> }>(
  db: Kysely<DB>,
  select: Q,
): Promise<void> {
  if (isPostgres(db)) await select.forUpdate().execute();
}

/** One of two implementations, chosen by the database's dialect: decided once, where it is built. */
export function pick<T>(database: { dialect: Dialect }, choices: Record<Dialect, T>): T {
  return choices[database.dialect];
}

/** A select that can also skip rows other transactions hold. */
interface SkipLockable<Q> {
  forUpdate(): { skipLocked(): Q };
}

/**
 * `query`, taking only rows no other transaction holds and locking them (PostgreSQL: FOR UPDATE
 * SKIP LOCKED, for workers that claim rows side by side); unchanged on SQLite's single writer.
 */
export function claimUnlocked<Q extends SkipLockable<Q>>(db: Kysely<DB>, query: Q): Q {
  return isPostgres(db) ? query.forUpdate().skipLocked() : query;
}
