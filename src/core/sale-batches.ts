import type { FigureChange, SaleFigures } from './sales.ts';
import { dayOf } from './time.ts';

/**
 * Which decided sales may be written in one statement, and what they move together (issue 15).
 * Sales decided without a lock are written only while their buyer's sale version is still the one
 * they read (migration 0023); several of them in one statement share one check per buyer, so two
 * sales of one buyer may go together only when neither moves the version (neither decision is one
 * that later sales of the buyer depend on) and both read the same version. Pure.
 */

export interface GuardedSale {
  customerId: number;
  /** The buyer's sale version the sale was decided on. */
  seen: number;
  /** Whether writing the sale moves the buyer's version on (it counts for later sales). */
  moves: boolean;
}

/**
 * The first batch of `queue` (at most `max` sales, in arrival order) and the sales left for a
 * later one: a sale joins unless the batch already has a sale of its buyer it cannot share a
 * check with.
 */
export function firstBatch<T extends GuardedSale>(
  queue: readonly T[],
  max: number,
): { batch: T[]; rest: T[] } {
  const batch: T[] = [];
  const rest: T[] = [];
  const buyers = new Map<number, GuardedSale>();
  for (const sale of queue) {
    const first = buyers.get(sale.customerId);
    const joins = batch.length < max && (!first || (!first.moves && !sale.moves && first.seen === sale.seen));
    if (!joins) {
      rest.push(sale);
      continue;
    }
    batch.push(sale);
    if (!first) buyers.set(sale.customerId, sale);
  }
  return { batch, rest };
}

/** One check per buyer of a batch, in buyer order (every batch takes its buyers' rows alike). */
export function buyerChecks<T extends GuardedSale>(batch: readonly T[]): T[] {
  const byBuyer = new Map<number, T>();
  for (const sale of batch) if (!byBuyer.has(sale.customerId)) byBuyer.set(sale.customerId, sale);
  return [...byBuyer.values()].sort((a, b) => a.customerId - b.customerId);
}

/**
 * The figures of several sales as one write: program figures summed per day (each sale counts on
 * its own day; `at` is the first of that day's sales), entity figures all together (the counter
 * write merges and orders them).
 */
export function batchFigures(sales: readonly { at: string; figures: SaleFigures }[]): {
  program: { at: string; figures: Record<string, bigint> }[];
  entities: FigureChange[];
} {
  const days = new Map<string, { at: string; figures: Record<string, bigint> }>();
  const entities: FigureChange[] = [];
  for (const { at, figures } of sales) {
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
