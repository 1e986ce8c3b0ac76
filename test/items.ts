import assert from 'node:assert/strict';

type Tuple<T, N extends number, R extends T[] = []> = R['length'] extends N ? R : Tuple<T, N, [...R, T]>;

/** The first `count` items of a list that must hold at least that many, as a tuple to destructure. */
export function firstItems<T, N extends 1 | 2 | 3 | 4 | 5 | 6>(list: readonly T[], count: N): Tuple<T, N> {
  assert.ok(list.length >= count, `expected ${count} items or more: ${JSON.stringify(list)}`);
  return list.slice(0, count) as Tuple<T, N>;
}

/** The item at `index` of a list that must have it. */
export function itemAt<T>(list: readonly T[], index = 0): T {
  const item = list[index];
  assert.ok(item !== undefined, `no item ${index}: ${JSON.stringify(list)}`);
  return item;
}
