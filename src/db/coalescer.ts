import type { Kysely } from 'kysely';
import { present } from '../core/present.ts';
import type { DB } from './tables.ts';

/**
 * Requests of the same kind that arrive within one turn of the event loop, grouped by a key (a
 * program), go to the database as one statement: one round trip, one plan's start-up and (for a
 * write) one commit for all of them instead of one each. When that statement fails, each request
 * goes alone, so one that fails answers its own error and the others are not held back by it. A
 * quiet server waits only that turn (`setImmediate`).
 */
export interface Coalesced<T, R> {
  /** The first batch of a turn's queue and what is left for the next one. */
  take(queue: readonly T[]): { batch: T[]; rest: T[] };
  /** The batch in one statement: each item's answer, in the batch's order. */
  together(key: number, batch: readonly T[]): Promise<readonly R[]>;
  alone(key: number, item: T): Promise<R>;
}

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export class Coalescer<T, R = void> {
  readonly #plan: Coalesced<T, R>;
  readonly #queues = new Map<number, Waiting<T, R>[]>();

  constructor(plan: Coalesced<T, R>) {
    this.#plan = plan;
  }

  /** Settles with `item`'s answer (or its error); every item is an object of its own. */
  run(key: number, item: T): Promise<R> {
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
    try {
      while (items.length > 0) {
        const { batch, rest } = this.#plan.take(items);
        if (batch.length === 0) throw new Error('Coalescer: take() left its whole queue');
        void this.#run(
          key,
          batch.map((item) => present(waiting.get(item), 'a taken item from the queue')),
        );
        items = rest;
      }
    } catch (error) {
      // A plan that cannot split its queue fails the requests left, rather than leave them waiting.
      for (const item of items) waiting.get(item)?.reject(error);
    }
  }

  async #run(key: number, batch: Waiting<T, R>[]): Promise<void> {
    if (batch.length > 1) {
      let answers: readonly R[] | undefined;
      try {
        answers = await this.#plan.together(
          key,
          batch.map((entry) => entry.item),
        );
      } catch {
        // Which request failed, and why, is each request's own to answer: each goes alone below.
      }
      if (answers) {
        for (const [i, entry] of batch.entries()) entry.resolve(answers[i] as R);
        return;
      }
    }
    await Promise.all(
      batch.map(async (entry) => {
        try {
          entry.resolve(await this.#plan.alone(key, entry.item));
        } catch (error) {
          entry.reject(error);
        }
      }),
    );
  }
}

/**
 * One coalescer of `plan` per database, made on first use (keyed by the database's Kysely
 * instance, as compiled statements are: db/prepared.ts).
 */
export function coalescerPerDatabase<T, R = void>(
  plan: (db: Kysely<DB>) => Coalesced<T, R>,
): (db: Kysely<DB>) => Coalescer<T, R> {
  const coalescers = new WeakMap<Kysely<DB>, Coalescer<T, R>>();
  return (db) => {
    let coalescer = coalescers.get(db);
    if (!coalescer) coalescers.set(db, (coalescer = new Coalescer(plan(db))));
    return coalescer;
  };
}

/**
 * A write of one program coalesced with the others of its turn: `take` splits a turn's queue into
 * batches, and `write` writes one batch, or one item alone, as one statement.
 */
export function coalescedWrites<T>(
  take: (queue: readonly T[]) => { batch: T[]; rest: T[] },
  write: (db: Kysely<DB>, programId: number, items: readonly T[]) => Promise<void>,
): (db: Kysely<DB>, programId: number, item: T) => Promise<void> {
  const coalescerOf = coalescerPerDatabase<T>((db) => ({
    take,
    together: async (programId, batch) => {
      await write(db, programId, batch);
      return [];
    },
    alone: (programId, item) => write(db, programId, [item]),
  }));
  return (db, programId, item) => coalescerOf(db).run(programId, item);
}
