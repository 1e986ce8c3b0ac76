/**
 * Names of rows by id (a partner's public id), kept while one long read runs (an export): the
 * rows of a page name a few thousand ids, most of them seen on earlier pages, so the names are
 * looked up only for the ids not seen yet, with one `in (…)` statement per page, instead of a
 * join's index look-up on every row. At most `limit` names are kept: past it the cache starts
 * again, so memory stays bounded whatever the table's size.
 */
export interface NamesById {
  /** Looks up the names of the ids not known yet. */
  learn(ids: Iterable<number | null>): Promise<void>;
  /** The name of an id `learn` was given; undefined for an id whose row does not exist. */
  nameOf(id: number): string | undefined;
}

export function namesById(
  lookUp: (ids: readonly number[]) => Promise<readonly (readonly [id: number, name: string])[]>,
  limit = 250_000,
): NamesById {
  let names = new Map<number, string>();
  return {
    async learn(ids) {
      const named = new Set<number>();
      for (const id of ids) if (id !== null) named.add(id);
      let unknown = [...named].filter((id) => !names.has(id));
      if (unknown.length === 0) return;
      if (names.size + unknown.length > limit) {
        names = new Map();
        unknown = [...named];
      }
      for (const [id, name] of await lookUp(unknown)) names.set(id, name);
    },
    nameOf: (id) => names.get(id),
  };
}
