import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { DB } from './tables.ts';

/**
 * Hot figures are spread over slots (issue 15). Every sale of a program adds to the program's
 * figures, and every sale of a partner to the partner's: on PostgreSQL one row per figure would
 * make each of those sales wait for the previous one's commit (its row lock), whatever the number
 * of connections or Vouch processes. So each figure is the sum of up to COUNTER_SLOTS rows
 * (`slot` in the key of program_counters and entity_counters); a write adds to its connection's
 * slot and a read sums the slots. Each pooled connection has its own slot (`vouch.counter_slot`,
 * a start-up option of the connection, postgres.ts), so two connections of a process never wait on each other's
 * figure rows while the pool is no larger than COUNTER_SLOTS. SQLite has a single writer: it
 * always writes slot 0.
 */
export const COUNTER_SLOTS = 8;

/** True when `db` (or a transaction of it) speaks to PostgreSQL: decided once per compiled query. */
export function isPostgres(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The slot a counter write adds to, as SQL: the connection's on PostgreSQL, 0 on SQLite. */
export function counterSlot(db: Kysely<DB>): RawBuilder<number> {
  return isPostgres(db)
    ? sql<number>`cast(coalesce(nullif(current_setting('vouch.counter_slot', true), ''), '0') as smallint)`
    : sql<number>`0`;
}

/** The slots of a process's connections start at a random offset, so two processes spread too. */
let nextSlot = Math.floor(Math.random() * COUNTER_SLOTS);

/** The start-up option of a new PostgreSQL connection that gives it the next slot. */
export function takeCounterSlot(): string {
  const slot = nextSlot;
  nextSlot = (nextSlot + 1) % COUNTER_SLOTS;
  return `-c vouch.counter_slot=${slot}`;
}
