import assert from 'node:assert/strict';

type Tuple<T, N extends number, R extends T[] = []> = R['length'] extends N ? R : Tuple<T, N, [...R, T]>;

/**
 * The list for a failure message, built only when an assertion fails: items may be replies,
 * whose `error` getter throws on a success, so the list may not serialise.
 */
function shown(list: readonly unknown[]): string {
  try {
    return JSON.stringify(list);
  } catch {
    return `${list.length} items`;
  }
}

/** The first `count` items of a list that must hold at least that many, as a tuple to destructure. */
export function firstItems<T, N extends 1 | 2 | 3 | 4 | 5 | 6>(list: readonly T[], count: N): Tuple<T, N> {
  if (list.length < count) assert.fail(`expected ${count} items or more: ${shown(list)}`);
  return list.slice(0, count) as Tuple<T, N>;
}

/** The item at `index` of a list that must have it. */
export function itemAt<T>(list: readonly T[], index = 0): T {
  const item = list[index];
  if (item === undefined) assert.fail(`no item ${index}: ${shown(list)}`);
  return item;
}
