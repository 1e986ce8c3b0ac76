/**
 * The one rule for booleans clients send: `true`, `"true"` and `1` are true; `false`, `"false"`
 * and `0` are false (the older `on`/`off` strings of some fields are read where those fields are);
 * absent is the fallback. Route schemas (`BooleanLike`) admit only these values.
 */
export type BooleanLikeValue = boolean | 'true' | 'false' | 1 | 0;

export function booleanOf(value: BooleanLikeValue | null | undefined, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  return value === true || value === 'true' || value === 1;
}

/** A status switch: the boolean rule plus the older `on`/`off` strings (coupon and promotion code statuses). */
export type SwitchValue = BooleanLikeValue | 'on' | 'off';

export function switchOf(value: SwitchValue | null | undefined, fallback: boolean): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  return booleanOf(value, fallback);
}
