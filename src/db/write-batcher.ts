import { type Kysely, sql } from 'kysely';
import { present } from '../core/present.ts';
import type { DB } from './tables.ts';

/**
 * Group commit for SQLite. SQLite has one writer, and there a commit (its WAL writes) costs more
 * than the statements of a sale. Creates that arrive while a batch is being written wait and go
 * in the next batch: one BEGIN IMMEDIATE … COMMIT for all of them, each inside its own
 * savepoint, so a create that fails is rolled back alone and answers its own error. A batch
 * starts one turn of the event loop after its first create arrives (a quiet server adds only
 * that). PostgreSQL runs each create in its own transaction (its pool writes concurrently).
 */

const MAX_BATCH = 64;

interface Item {
  work: (trx: Kysely<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** One per SQLite database handle (db/database.ts): concurrent writes share its commits. */
export class WriteBatcher {
  readonly #db: Kysely<DB>;
  readonly #opened: (trx: Kysely<DB>) => void;
  #queue: Item[] = [];
  #running = false;

  /** `opened` is told of each batch's transaction before its first write. */
  constructor(db: Kysely<DB>, opened: (trx: Kysely<DB>) => void = () => {}) {
    this.#db = db;
    this.#opened = opened;
  }

  run<T>(work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#running) return;
      this.#running = true;
      // better-sqlite3 answers synchronously: a batch started now would run to its commit
      // before the event loop reads the requests already waiting on other sockets. Starting it
      // after the loop's poll phase lets them join.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
        try {
          await this.#db.transaction().execute(async (trx) => {
            this.#opened(trx);
            for (const item of batch) {
              await sql`savepoint vouch_item`.execute(trx);
              try {
                const value = await item.work(trx);
                await sql`release savepoint vouch_item`.execute(trx);
                outcomes.push({ ok: true, value });
              } catch (error) {
                await sql`rollback to savepoint vouch_item`.execute(trx);
                await sql`release savepoint vouch_item`.execute(trx);
                outcomes.push({ ok: false, error });
              }
            }
          });
        } catch (error) {
          // The commit itself failed: nothing of the batch is stored.
          for (const item of batch) item.reject(error);
          continue;
        }
        batch.forEach((item, i) => {
          const outcome = present(outcomes[i], 'an outcome per batched write');
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        });
      }
    } finally {
      this.#running = false;
    }
  }
}
