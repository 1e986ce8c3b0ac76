import type { Kysely } from 'kysely';
import type { DB } from './tables.ts';

/**
 * Writes that arrive within one turn of the event loop, grouped by a key (a program), go to the
 * database as one statement: one round trip, one plan's start-up and one commit for all of them
 * instead of one each, and figures several of them move are written once. When the statement
 * fails, each write goes alone, so a write that fails answers its own error and the others are
 * not held back by it. A quiet server waits only that turn (`setImmediate`).
 */
export interface CoalescedWrites<T> {
  /** The first batch of a turn's queue and what is left for the next one. */
  take(queue: readonly T[]): { batch: T[]; rest: T[] };
  together(key: number, batch: readonly T[]): Promise<void>;
  alone(key: number, item: T): Promise<void>;
}

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class WriteCoalescer<T> {
  readonly #writes: CoalescedWrites<T>;
  readonly #queues = new Map<number, Waiting<T>[]>();

  constructor(writes: CoalescedWrites<T>) {
    this.#writes = writes;
  }

  /** Settles once `item` is written (or refused); every item is an object of its own. */
  write(key: number, item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      let queue = this.#queues.get(key);
      if (!queue) {
        this.#queues.set(key, (queue = []));
        setImmediate(() => this.#flush(key));
      }
      queue.push({ item, resolve, reject });
    });
  }

  #flush(key: number): void {
    const queue = this.#queues.get(key) ?? [];
    this.#queues.delete(key);
    const waiting = new Map(queue.map((entry) => [entry.item, entry]));
    let items = queue.map((entry) => entry.item);
    while (items.length > 0) {
      const { batch, rest } = this.#writes.take(items);
      if (batch.length === 0) throw new Error('WriteCoalescer: take() left its whole queue');
      void this.#run(
        key,
        batch.map((item) => waiting.get(item)!),
      );
      items = rest;
    }
  }

  async #run(key: number, batch: Waiting<T>[]): Promise<void> {
    if (batch.length > 1) {
      try {
        await this.#writes.together(
          key,
          batch.map((entry) => entry.item),
        );
        for (const entry of batch) entry.resolve();
        return;
      } catch {
        // Which write failed, and why, is each write's own to answer: each goes alone below.
      }
    }
    await Promise.all(
      batch.map(async (entry) => {
        try {
          await this.#writes.alone(key, entry.item);
          entry.resolve();
        } catch (error) {
          entry.reject(error);
        }
      }),
    );
  }
}

/**
 * One coalescer of `writes` per database, made on first use (keyed by the database's Kysely
 * instance, as compiled statements are: db/prepared.ts).
 */
export function coalescerPerDatabase<T>(
  writes: (db: Kysely<DB>) => CoalescedWrites<T>,
): (db: Kysely<DB>) => WriteCoalescer<T> {
  const coalescers = new WeakMap<Kysely<DB>, WriteCoalescer<T>>();
  return (db) => {
    let coalescer = coalescers.get(db);
    if (!coalescer) coalescers.set(db, (coalescer = new WriteCoalescer(writes(db))));
    return coalescer;
  };
}
