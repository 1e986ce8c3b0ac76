import type { FigureChange } from '../../core/sales.ts';

/** Sums of many decisions' entity figures, by owner and metric, in exact micro-units. */
export class FigureTotals {
  readonly #byKind = new Map<FigureChange['kind'], Map<number, Map<string, bigint>>>();

  add(changes: readonly FigureChange[]): void {
    for (const change of changes) {
      let owners = this.#byKind.get(change.kind);
      if (!owners) {
        owners = new Map();
        this.#byKind.set(change.kind, owners);
      }
      let figures = owners.get(change.id);
      if (!figures) {
        figures = new Map();
        owners.set(change.id, figures);
      }
      figures.set(change.metric, (figures.get(change.metric) ?? 0n) + change.value);
    }
  }

  *changes(): Generator<FigureChange> {
    for (const [kind, owners] of this.#byKind)
      for (const [id, figures] of owners)
        for (const [metric, value] of figures) if (value !== 0n) yield { kind, id, metric, value };
  }
}

/** A program's figures by day (`YYYY-MM-DD`), summed before they are written once per day. */
export class ProgramDays {
  readonly #days = new Map<string, Record<string, bigint>>();

  add(timestamp: string, deltas: Record<string, bigint>): void {
    const day = timestamp.slice(0, 10);
    const figures = this.#days.get(day) ?? {};
    for (const [metric, value] of Object.entries(deltas)) figures[metric] = (figures[metric] ?? 0n) + value;
    this.#days.set(day, figures);
  }

  /** Each day's start (`YYYY-MM-DDT00:00:00.000000Z`) with its summed figures. */
  *days(): Generator<[string, Record<string, bigint>]> {
    for (const [day, figures] of this.#days) yield [`${day}T00:00:00.000000Z`, figures];
  }
}
