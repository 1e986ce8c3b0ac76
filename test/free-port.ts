import { createServer } from 'node:net';

/**
 * A port the kernel has just handed out and released. A random pick from a range can land on a
 * port another process (or an outgoing connection's ephemeral port) holds.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
