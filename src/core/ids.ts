import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A random alphanumeric string. Rejection sampling keeps every character equally likely
 * (256 is not a multiple of 62).
 */
export function randomAlphanumeric(length = 12): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += ALPHANUMERIC[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Generated keys and ids of resources: 12 alphanumerics (contract §4.14). */
export const newKey = (): string => randomAlphanumeric(12);
