/**
 * A value the code knows is there (an index below a length, a key just set, a group a regular
 * expression always captures). Where `!` would let a broken assumption through as `undefined`,
 * this stops at it, naming what was missing.
 */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`expected ${what}`);
  return value;
}
