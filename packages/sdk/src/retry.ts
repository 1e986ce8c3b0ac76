import { errorFromAnswer, VouchError } from './errors.ts';

export interface RetryOptions {
  /** Attempts after the first; 0 turns retrying off. Default 3. */
  retries?: number;
  /** The wait before the first retry when the server names none; doubles each time. Default 500 ms. */
  baseDelayMs?: number;
  /** The longest wait; a `Retry-After` beyond it is not waited for, the error is thrown. Default 60 s. */
  maxDelayMs?: number;
  /** How to wait (tests pass one that records instead of waiting). Default: setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

/** What one attempt of openapi-fetch answers. */
export interface Attempt<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Whether a failed attempt may be sent again: only a call that the API promises to replay. */
export type Replay = 'safe' | 'once';

const retriedStatuses = new Set([429, 503]);

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const isAbort = (error: unknown) =>
  error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');

/**
 * Runs a call, and runs it again with the same body when it may be replayed (`safe`: reads and
 * creates with a business key) and no answer came, or the answer was 429/503. The server's
 * `Retry-After` decides the wait; without one, the wait doubles from `baseDelayMs`.
 */
export async function withRetry<T>(
  call: () => Promise<Attempt<T>>,
  replay: Replay,
  options: RetryOptions = {},
): Promise<{ data: T; response: Response }> {
  const retries = replay === 'safe' ? (options.retries ?? 3) : 0;
  const base = options.baseDelayMs ?? 500;
  const max = options.maxDelayMs ?? 60_000;
  const sleep = options.sleep ?? wait;
  for (let attempt = 0; ; attempt++) {
    let failure: VouchError;
    let delayMs = base * 2 ** attempt;
    try {
      const { data, error, response } = await call();
      if (response.ok && data !== undefined) return { data, response };
      failure = errorFromAnswer(response, error);
      if (!retriedStatuses.has(response.status)) throw failure;
      if (failure.retryAfter !== undefined) delayMs = failure.retryAfter * 1000;
    } catch (error) {
      if (error instanceof VouchError || isAbort(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      failure = new VouchError(0, `No answer from Vouch: ${reason}`, { cause: error });
    }
    if (attempt >= retries || delayMs > max) throw failure;
    await sleep(delayMs);
  }
}
