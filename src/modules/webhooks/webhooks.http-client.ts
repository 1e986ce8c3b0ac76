import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { type AddressGuard, BlockedAddressError, ipLiteralOf } from './webhooks.address-guard.ts';

export interface PostOutcome {
  /** The receiver's status code, when it answered. */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The guard refused the address: final, retrying would not help. */
  blocked: boolean;
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`timeout: no answer within ${ms} ms`);
  }
}

// Receivers' answers are read and thrown away; a receiver that streams more is cut off.
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Posts webhook bodies over keep-alive connections whose every address passes the SSRF guard.
 * Redirects are not followed: a 3xx is an answer like any other.
 */
export class WebhookHttpClient {
  readonly #guard: AddressGuard;
  readonly #timeoutMs: number;
  readonly #http: http.Agent;
  readonly #https: https.Agent;

  constructor(guard: AddressGuard, timeoutMs: number, maxSockets = 64) {
    this.#guard = guard;
    this.#timeoutMs = timeoutMs;
    const lookup = guard.lookup();
    this.#http = new http.Agent({ keepAlive: true, maxSockets, lookup });
    this.#https = new https.Agent({ keepAlive: true, maxSockets, lookup });
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (statusCode: number | null, error: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          statusCode,
          durationMs: elapsed(),
          error: error ? describe(error) : null,
          blocked: error instanceof BlockedAddressError,
        });
      };

      // IP literals never reach `lookup`: judge them here, before any packet leaves.
      const literal = ipLiteralOf(url);
      if (literal !== undefined && !this.#guard.permits(literal)) {
        return finish(null, new BlockedAddressError(literal));
      }

      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return finish(null, new Error(`invalid url: ${url}`));
      }
      const secure = target.protocol === 'https:';
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? this.#https : this.#http,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
      timer = setTimeout(() => request.destroy(new TimeoutError(this.#timeoutMs)), this.#timeoutMs);

      request.on('socket', (socket: Socket) => {
        // The address the socket actually connected to, checked once more.
        const verify = () => {
          const remote = socket.remoteAddress;
          if (remote !== undefined && !this.#guard.permits(remote)) {
            request.destroy(new BlockedAddressError(remote));
          }
        };
        if (socket.connecting) socket.once('connect', verify);
        else verify();
      });
      request.on('response', (response) => {
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) response.destroy();
        });
        response.on('end', () => finish(response.statusCode ?? null, null));
        response.on('close', () => finish(response.statusCode ?? null, null));
        response.on('error', () => finish(response.statusCode ?? null, null));
      });
      request.on('error', (error) => finish(null, error));
      request.end(body);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

function describe(error: Error): string {
  const code = (error as { code?: unknown }).code;
  if (error instanceof BlockedAddressError || error instanceof TimeoutError) return error.message;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
