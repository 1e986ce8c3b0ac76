import type { FigureChange, SaleFigures } from './sales.ts';
import { dayOf } from './time.ts';

/**
 * Which writes decided without a lock may go in one statement, and what they move together
 * (issue 15). A sale decided without a lock is written only while its buyer's sale version is
 * still the one it read (migration 0023), and a referrer's first referral only while the
 * referrer's is; several writes in one statement share one check per customer, so two writes
 * checking one customer may go together only when neither moves its version (neither decision is
 * one that later writes depend on) and both read the same version. Pure.
 */

/** The check of a write decided without a lock: a customer's version as read. */
export interface VersionCheck {
  customerId: number;
  /** The customer's sale version the write was decided on. */
  seen: number;
  /** Whether the write moves the version on (later writes decide on what it counted). */
  moves: boolean;
}

/**
 * The first batch of `queue` (at most `max` writes, in arrival order) and the writes left for a
 * later one: a write joins unless the batch already checks its customer in a way it cannot share.
 * A write without a check always joins while there is room.
 */
export function firstBatch<T>(
  queue: readonly T[],
  max: number,
  checkOf: (write: T) => VersionCheck | undefined,
): { batch: T[]; rest: T[] } {
  const batch: T[] = [];
  const rest: T[] = [];
  const checked = new Map<number, VersionCheck>();
  for (const write of queue) {
    const check = checkOf(write);
    const first = check && checked.get(check.customerId);
    const joins =
      batch.length < max && (!check || !first || (!first.moves && !check.moves && first.seen === check.seen));
    if (!joins) {
      rest.push(write);
      continue;
    }
    batch.push(write);
    if (check && !first) checked.set(check.customerId, check);
  }
  return { batch, rest };
}

/** One check per customer of a batch, in customer order (every batch takes those rows alike). */
export function batchChecks<T>(
  batch: readonly T[],
  checkOf: (write: T) => VersionCheck | undefined,
): VersionCheck[] {
  const byCustomer = new Map<number, VersionCheck>();
  for (const write of batch) {
    const check = checkOf(write);
    if (check && !byCustomer.has(check.customerId)) byCustomer.set(check.customerId, check);
  }
  return [...byCustomer.values()].sort((a, b) => a.customerId - b.customerId);
}

/**
 * The figures of several writes as one: program figures summed per day (each write counts on
 * its own day; `at` is the first of that day's writes), entity figures all together (the counter
 * write merges and orders them).
 */
export function batchFigures(writes: readonly { at: string; figures: SaleFigures }[]): {
  program: { at: string; figures: Record<string, bigint> }[];
  entities: FigureChange[];
} {
  const days = new Map<string, { at: string; figures: Record<string, bigint> }>();
  const entities: FigureChange[] = [];
  for (const { at, figures } of writes) {
    const day = dayOf(at);
    let sums = days.get(day);
    if (!sums) days.set(day, (sums = { at, figures: {} }));
    for (const [metric, value] of Object.entries(figures.program))
      sums.figures[metric] = (sums.figures[metric] ?? 0n) + value;
    entities.push(...figures.entities);
  }
  const program = [...days.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, sums]) => sums);
  return { program, entities };
}
