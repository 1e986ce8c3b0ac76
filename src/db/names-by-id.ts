/**
 * Names of rows by id (a partner's public id), kept while one long read runs (an export): the
 * rows of a page name a few thousand ids, most of them seen on earlier pages, so the names are
 * looked up only for the ids not seen yet, with one `in (…)` statement per page, instead of a
 * join's index look-up on every row. At most `limit` names are kept: past it the cache starts
 * again, so memory stays bounded whatever the table's size.
 */
export interface NamesById {
  /** The name of each id, in order; null for null and for an id whose row does not exist. */
  namesOf(ids: readonly (number | null)[]): Promise<(string | null)[]>;
}

export function namesById(
  lookUp: (ids: readonly number[]) => Promise<readonly (readonly [id: number, name: string])[]>,
  limit = 250_000,
): NamesById {
  let names = new Map<number, string>();
  return {
    async namesOf(ids) {
      const found: (string | null)[] = new Array(ids.length);
      const missing: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] ?? null;
        const name = id === null ? null : names.get(id);
        if (name === undefined) missing.push(i);
        else found[i] = name;
      }
      if (missing.length === 0) return found;
      // In id order: the look-up then walks the table's pages in order, each read once.
      const unknown = [...new Set(missing.map((i) => ids[i] ?? 0))].sort((a, b) => a - b);
      if (names.size + unknown.length > limit) names = new Map();
      for (const [id, name] of await lookUp(unknown)) names.set(id, name);
      for (const i of missing) found[i] = names.get(ids[i] ?? 0) ?? null;
      return found;
    },
  };
}
