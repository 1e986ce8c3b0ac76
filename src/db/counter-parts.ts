import { sql } from 'kysely';

/**
 * Counters (entity_counters, program_counters) hold sums of micro-units up to 10^15 units, i.e.
 * 10^21 micro-units: beyond int64 and far beyond a double. Each figure is kept in two integer
 * columns, `value_hi × 10^12 + value`, with `value` in [0, 10^12) after every write, so each
 * column stays well inside int64 on both databases and inside a double when read. A delta is
 * split the same way in JS before it is bound (both parts then fit a double exactly); the upsert
 * adds the low parts, keeps the remainder and carries the quotient, in one statement that reads
 * the same on SQLite and PostgreSQL (integer `/` and `%` of non-negative operands agree there).
 */
export const COUNTER_BASE = 1_000_000_000_000;
const BASE = BigInt(COUNTER_BASE);

/** A delta as `[low, high]` with `low` in [0, 10^12): −1 is `[10^12 − 1, −1]`. */
export function splitCounterDelta(delta: bigint | number): [low: number, high: number] {
  if (typeof delta === 'number' && Number.isSafeInteger(delta) && delta >= 0 && delta < COUNTER_BASE) {
    return [delta, 0];
  }
  const value = BigInt(delta);
  let high = value / BASE;
  let low = value - high * BASE;
  if (low < 0n) {
    low += BASE;
    high -= 1n;
  }
  return [Number(low), Number(high)];
}

/** The exact figure of a row's two parts, whatever the driver handed back. */
export function joinCounterParts(low: number | bigint | string, high: number | bigint | string): bigint {
  if (typeof low === 'number' && (high === 0 || high === '0')) return BigInt(low);
  return BigInt(high) * BASE + BigInt(low);
}

/** A figure as a count: the nearest number (counts never come near 2^53). */
export function counterAsNumber(low: number | bigint | string, high: number | bigint | string): number {
  if (typeof low === 'number' && high === 0) return low;
  return Number(joinCounterParts(low, high));
}

/**
 * The `do update set` of a counter upsert: `value = (value + excluded.value) % B`,
 * `value_hi = value_hi + excluded.value_hi + (value + excluded.value) / B`. Both assignments read
 * the row as it was before the update, on both databases.
 */
export function carryingUpdate(table: 'entity_counters' | 'program_counters' | 'entity_counters_by_day') {
  const current = sql.ref(`${table}.value`);
  const base = sql.lit(COUNTER_BASE);
  return {
    value: sql<number>`(${current} + excluded.value) % ${base}`,
    value_hi: sql<number>`${sql.ref(`${table}.value_hi`)} + excluded.value_hi + (${current} + excluded.value) / ${base}`,
  };
}

/**
 * The figures of one owner, exact: `micros(metric)` for sums of money, `count(metric)` for
 * counts (the nearest number), and iteration over every figure as a bigint. Absent figures are 0.
 */
export class CounterFigures implements Iterable<[metric: string, value: bigint]> {
  readonly #figures = new Map<string, bigint>();

  static of(
    rows: readonly { metric: string; value: number | bigint | string; value_hi: number | bigint | string }[],
  ) {
    const figures = new CounterFigures();
    // A figure may have several rows, its slots (db/counter-slots.ts): they add up.
    for (const row of rows) {
      const value = joinCounterParts(row.value, row.value_hi);
      const before = figures.#figures.get(row.metric);
      figures.#figures.set(row.metric, before === undefined ? value : before + value);
    }
    return figures;
  }

  micros(metric: string): bigint {
    return this.#figures.get(metric) ?? 0n;
  }

  count(metric: string): number {
    const value = this.#figures.get(metric);
    return value === undefined ? 0 : Number(value);
  }

  /** Map-like access: the exact figure, or undefined when the owner has none. */
  get(metric: string): bigint | undefined {
    return this.#figures.get(metric);
  }

  has(metric: string): boolean {
    return this.#figures.has(metric);
  }

  [Symbol.iterator]() {
    return this.#figures[Symbol.iterator]();
  }
}
