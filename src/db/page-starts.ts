import { deleteOldest } from '../core/oldest.ts';
/**
 * Where the deep pages of a list start: the sort key of the row at an offset, remembered for a
 * short time, so that the same page, the next one, or one a little further is found by seeking
 * that key on the list's index and skipping at most `reach` rows, instead of skipping every row
 * before it (an offset of 20,000 costs about as much as the rest of the request several times
 * over). A remembered start may be up to `ttlMs` old: a page found from it is the one a reader
 * would have got then, as a page-numbered list under concurrent writes shifts anyway.
 *
 * Lists are named by the caller (the program, filter values and order); at most `lists` lists
 * (then it starts over), each with its `perList` latest starts. One per database handle.
 */
export class PageStarts<Key> {
  readonly #lists = new Map<string, Map<number, { key: Key; until: number }>>();

  constructor(
    private readonly options: {
      ttlMs: number;
      lists: number;
      perList: number;
      /** The most rows a page found from a start may still skip. */
      reach: number;
      now?: () => number;
    },
  ) {}

  /** The nearest remembered start at or before `offset` within `reach` rows, if one is still fresh. */
  find(list: string, offset: number): { offset: number; key: Key } | undefined {
    const starts = this.#lists.get(list);
    if (!starts) return undefined;
    const now = (this.options.now ?? Date.now)();
    const exact = starts.get(offset);
    if (exact && exact.until > now) return { offset, key: exact.key };
    let best: { offset: number; key: Key } | undefined;
    for (const [at, start] of starts) {
      if (at > offset || offset - at > this.options.reach || start.until <= now) continue;
      if (!best || at > best.offset) best = { offset: at, key: start.key };
    }
    return best;
  }

  /** The row at `offset` of `list` has sort key `key` (as just read). */
  remember(list: string, offset: number, key: Key): void {
    let starts = this.#lists.get(list);
    if (!starts) {
      if (this.#lists.size >= this.options.lists) this.#lists.clear();
      starts = new Map();
      this.#lists.set(list, starts);
    }
    starts.delete(offset);
    if (starts.size >= this.options.perList) deleteOldest(starts);
    starts.set(offset, { key, until: (this.options.now ?? Date.now)() + this.options.ttlMs });
  }
}
