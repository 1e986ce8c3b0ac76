import { createHash } from 'node:crypto';

/**
 * A digest of a request body for insert-or-replay (core/insert-or-replay.ts): the same body
 * again, whatever the order of its keys, gives the same digest. Absent and `undefined` fields are
 * the same; arrays keep their order (it is part of what was asked).
 */
export function requestDigest(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  return JSON.stringify(value ?? null);
}
