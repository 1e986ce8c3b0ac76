import type { PostOutcome } from './webhooks.http-client.ts';

/**
 * The Standard Webhooks retry schedule: the first attempt at once, then these delays after each
 * failure (about three days in all), each stretched by up to 10 % of jitter so that receivers
 * coming back from an outage are not hit by every retry at the same instant.
 */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.1;

/** A request's own deadline; a claim lasts longer, so a live worker never loses its claim. */
export const DELIVERY_TIMEOUT_MS = 15_000;
export const CLAIM_LEASE_MS = 60_000;

/**
 * What an answer means: 2xx delivered; 410 the receiver is gone for good (the webhook is turned
 * off); timeouts, connection errors, 3xx (redirects are not followed), 429 and 5xx are worth
 * another try; any other 4xx, or an address the guard refuses, is final.
 */
export type Verdict = 'succeeded' | 'retry' | 'final' | 'gone';

export function verdictOf(outcome: PostOutcome): Verdict {
  if (outcome.blocked) return 'final';
  const code = outcome.statusCode;
  if (code === null) return 'retry';
  if (code >= 200 && code < 300) return 'succeeded';
  if (code === 410) return 'gone';
  if (code === 429 || code >= 500 || (code >= 300 && code < 400)) return 'retry';
  return 'final';
}

/** Milliseconds until the next attempt after `attemptsMade` failed ones, or undefined: give up. */
export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + JITTER * random()));
}
