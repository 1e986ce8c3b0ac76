/**
 * Reuses what `load` answered for a key during `ttlMs`: for reads that may lag by that much (a
 * documented short bound) and are asked far more often than they change. At most `capacity`
 * keys (then it starts over); a load that fails is forgotten at once. One per app, never shared
 * between apps: keys are only unique within one database.
 */
export class ShortCache<Key, Value> {
  readonly #entries = new Map<Key, { until: number; value: Promise<Value> }>();

  constructor(private readonly options: { ttlMs: number; capacity: number; now?: () => number }) {}

  get(key: Key, load: () => Promise<Value>): Promise<Value> {
    const now = (this.options.now ?? Date.now)();
    const hit = this.#entries.get(key);
    if (hit && hit.until > now) return hit.value;
    if (this.#entries.size >= this.options.capacity) this.#entries.clear();
    const value = load();
    this.#entries.set(key, { until: now + this.options.ttlMs, value });
    value.catch(() => this.#entries.delete(key));
    return value;
  }

  /** Forgets every entry: the owner of the data changed some (in this process). */
  clear(): void {
    this.#entries.clear();
  }
}
