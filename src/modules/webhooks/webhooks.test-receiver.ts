import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A loopback receiver for delivery tests: records what arrives and answers with the status the
 * test chooses (a number, or a function of the request count); `hang` never answers.
 */
export async function startReceiver(answer: number | 'hang' | ((n: number) => number | 'hang') = 200) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      });
      for (const wake of waiters.splice(0)) wake();
      const status = typeof answer === 'function' ? answer(received.length) : answer;
      if (status === 'hang') return;
      response.writeHead(status, {
        'content-type': 'text/plain',
        ...(status === 301 ? { location: '/elsewhere' } : {}),
      });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    /** Resolves once `count` requests have arrived (or rejects after `ms`). */
    async waitFor(count: number, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
