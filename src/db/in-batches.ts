export interface SweepBounds {
  /** Rows a step. */
  batch: number;
  /** Rows changed in all, a pass. */
  max: number;
}

/** The worker's sweeps: 1,000 rows a step (a short lock), at most 20,000 a pass, unless told. */
export function sweepBounds(options: Partial<SweepBounds> = {}): SweepBounds {
  return { batch: options.batch ?? 1000, max: options.max ?? 20_000 };
}

/**
 * A background sweep in bounded steps: `step(limit)` handles at most `limit` rows (one short
 * transaction or statement) and answers how many it looked at and how many it changed. Steps run
 * until one looks at fewer rows than it was asked for (nothing is left) or `max` rows changed in
 * all. Answers how many changed.
 */
export async function inBatches(
  step: (limit: number) => Promise<{ examined: number; changed: number }>,
  options: SweepBounds,
): Promise<number> {
  let changed = 0;
  while (changed < options.max) {
    const limit = Math.min(options.batch, options.max - changed);
    const done = await step(limit);
    changed += done.changed;
    if (done.examined < limit) break;
  }
  return changed;
}
