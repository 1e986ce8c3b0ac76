import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { describeEachDatabase, type TestServer } from './harness.ts';

/**
 * Issue 9: slow and idle clients cannot hold connections. The bounds are short here; their
 * defaults (10 s headers, 30 s request, 5 s keep-alive idle) are config.ts's.
 */
const HEADERS_MS = 600;
const REQUEST_MS = 1200;
const KEEP_ALIVE_MS = 400;
const MAX_CONNECTIONS = 20;
// Node checks timeouts on an interval; a busy machine adds to it.
const SLACK_MS = 3000;

interface Opened {
  socket: Socket;
  /** Resolves with the milliseconds from opening to the server closing it, and what it sent. */
  closed: Promise<{ ms: number; received: string }>;
}

function open(server: TestServer): Promise<Opened> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    const closed = new Promise<{ ms: number; received: string }>((done) => {
      socket.on('close', () => done({ ms: performance.now() - started, received }));
    });
    socket.on('error', () => {});
    // A socket the server never closes fails its test instead of hanging it.
    const guard = setTimeout(() => socket.destroy(), 15_000);
    socket.on('close', () => clearTimeout(guard));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Writes `chunk` every `everyMs` until the socket closes; returns a stop function. */
function trickle(socket: Socket, chunk: string, everyMs: number): () => void {
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(chunk);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
  return () => clearInterval(timer);
}

describeEachDatabase(
  'server timeouts',
  (server) => {
    test('sockets trickling headers are closed after the header timeout, with a 408', async () => {
      const sockets = await Promise.all(Array.from({ length: 10 }, () => open(server())));
      for (const { socket } of sockets) {
        socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
        trickle(socket, 'X-Slow: a\r\n', 100);
      }
      for (const { closed } of sockets) {
        const { ms, received } = await closed;
        assert.ok(ms < HEADERS_MS + SLACK_MS, `closed after ${ms.toFixed(0)} ms`);
        assert.match(received, /^HTTP\/1\.1 408 /);
        assert.match(
          received,
          /\{"message":"The request took too long to arrive\.","errors":\{\},"status":0\}/,
        );
      }
    });

    test('sockets trickling a body are closed after the request timeout', async () => {
      const p = await server().newProgram('affiliate');
      const sockets = await Promise.all(Array.from({ length: 10 }, () => open(server())));
      for (const { socket } of sockets) {
        socket.write(
          `PUT /v1/program HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"`,
        );
        trickle(socket, 'a', 100);
      }
      for (const { closed } of sockets) {
        const { ms } = await closed;
        assert.ok(ms < REQUEST_MS + SLACK_MS, `closed after ${ms.toFixed(0)} ms`);
        assert.ok(ms >= REQUEST_MS - 100, `not before the request timeout (${ms.toFixed(0)} ms)`);
      }
      const after = await server().request('GET', '/v1/program', { token: p.token });
      assert.equal(after.body.data.program.name, 'affiliate program', 'no half-written update');
    });

    test('a connection that sends nothing, and an idle keep-alive one, are closed', async () => {
      const silent = await open(server());
      const kept = await open(server());
      kept.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      const silentClosed = await silent.closed;
      assert.ok(silentClosed.ms < HEADERS_MS + SLACK_MS, `silent: ${silentClosed.ms.toFixed(0)} ms`);
      const keptClosed = await kept.closed;
      assert.match(keptClosed.received, /^HTTP\/1\.1 200 /);
      assert.ok(keptClosed.ms < KEEP_ALIVE_MS + SLACK_MS, `keep-alive: ${keptClosed.ms.toFixed(0)} ms`);
    });

    test('connections beyond MAX_CONNECTIONS are closed at once, and the server serves again after', async () => {
      const sockets = await Promise.all(Array.from({ length: MAX_CONNECTIONS + 10 }, () => open(server())));
      const early = await Promise.all(
        sockets.map(({ closed }) =>
          Promise.race([closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 300))]),
        ),
      );
      const closedAtOnce = early.filter(Boolean).length;
      assert.ok(closedAtOnce >= 10, `${closedAtOnce} of ${sockets.length} closed at once`);
      for (const { socket } of sockets) socket.destroy();
      await Promise.all(sockets.map(({ closed }) => closed));
      const health = await server().request('GET', '/health');
      assert.equal(health.status, 200);
    });
  },
  {
    env: {
      HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    },
  },
);

test('a request arriving while the server drains answers 503 in the error body', async () => {
  const { startServer, testDialects, ADMIN_TOKEN } = await import('./harness.ts');
  const draining = await startServer({ dialect: testDialects()[0] ?? 'sqlite' });
  const { socket, closed } = await open(draining);
  const body = JSON.stringify({ name: 'In flight', type: 'affiliate', website: 'https://shop.example.com' });
  socket.write(
    `POST /admin/v1/programs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  await new Promise((r) => setTimeout(r, 200));
  const closing = draining.app.close();
  await new Promise((r) => setTimeout(r, 200));
  socket.write(
    `${body}GET /admin/v1/programs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`,
  );
  const { received } = await closed;
  await closing;
  await draining.deps.database.close();
  assert.match(received, /^HTTP\/1\.1 201 /);
  assert.match(received, /HTTP\/1\.1 503 [^\n]*\r\n/);
  assert.match(
    received,
    /\{"message":"The server is shutting down; retry the request\.","errors":\{\},"status":0\}$/,
  );
});
