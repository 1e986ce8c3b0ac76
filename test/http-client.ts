// The test client's HTTP: one keep-alive agent for every request the tests send to a test server.
import { Agent, request as sendRequest } from 'node:http';

/**
 * Keep-alive, with idle sockets dropped after 2 s: the server closes an idle connection after
 * KEEP_ALIVE_TIMEOUT_MS (5 s), and a request sent on a socket the server is closing at that moment
 * fails with "socket hang up". Dropping them well before keeps the two from meeting on a busy run.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 2_000 });

/**
 * Plain node:http rather than fetch: clients of this API send JSON bodies on GET, which fetch
 * refuses to send.
 */
export function httpRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = sendRequest(url, { method, headers, agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({
          status: incoming.statusCode ?? 0,
          headers: responseHeaders,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    if (body !== undefined) outgoing.setHeader('content-length', Buffer.byteLength(body));
    outgoing.end(body);
  });
}
