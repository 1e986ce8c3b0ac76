import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { type RetryOptions, Vouch } from '../src/index.ts';

/** Waits recorded instead of waited: retries run at once and the test sees each delay. */
export function recordedSleep(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}

export function vouchFor(
  server: TestServer,
  program: TestProgram,
  options: { fetch?: (request: Request) => Promise<Response>; retry?: RetryOptions; read?: boolean } = {},
): Vouch {
  return new Vouch({
    baseUrl: server.url,
    apiKey: options.read ? program.readToken : program.token,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    retry: options.retry ?? { sleep: recordedSleep().sleep },
  });
}

/** A fetch that sends every request, but loses the answer of the first one matching `drops`. */
export function losingFirstAnswer(drops: (request: Request) => boolean) {
  const seen: string[] = [];
  let lost = false;
  const fetchOnce = async (request: Request) => {
    seen.push(`${request.method} ${new URL(request.url).pathname} ${await request.clone().text()}`);
    const response = await fetch(request);
    if (!lost && drops(request)) {
      lost = true;
      throw new TypeError('fetch failed: the connection was reset');
    }
    return response;
  };
  return { fetch: fetchOnce, seen };
}
