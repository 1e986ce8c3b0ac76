import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../core/errors.ts';
import { programTypeLabel } from '../core/program-types.ts';
import { ApiKeyResolver } from '../modules/api-keys/api-keys.service.ts';
import { routeNotFound } from './errors.ts';
import { type MinuteCounter, minuteCounter } from './rate-limit.ts';

const BEARER = /^Bearer +(\S+) *$/i;

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return header ? BEARER.exec(header)?.[1] : undefined;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * Authentication and the route policy at request time, in the order clients expect:
 * 401 (no or bad key) → 403 (read-only key on a write) → 403 (endpoint not in the program's type).
 */
export const authenticate = fp(async (app: FastifyInstance) => {
  const resolver = new ApiKeyResolver(app.deps);
  const { adminToken, authFailuresPerMinute, adminRateLimitPerMinute } = app.deps.config;
  const adminDigest = adminToken ? sha256(adminToken) : undefined;
  const failures = authFailuresPerMinute
    ? budget(minuteCounter(app, 'vouch-auth-failures:', authFailuresPerMinute), authFailuresPerMinute)
    : undefined;
  const adminRequests = adminRateLimitPerMinute
    ? budget(minuteCounter(app, 'vouch-admin:', adminRateLimitPerMinute), adminRateLimitPerMinute)
    : undefined;
  app.decorateRequest('program', null);

  /** A 401, or a 429 once this address has failed too often this minute. */
  const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
    await failures?.spend(request.ip, reply);
    return new AppError('unauthenticated', 'Unauthenticated.');
  };

  app.addHook('onRequest', async (request, reply) => {
    const { auth, programTypes, writes } = request.routeOptions.config;
    if (auth === 'apiKey') {
      // An address over its failure budget is not looked up again until its window ends.
      failures?.assertOpen(request.ip, reply);
      const token = bearerToken(request);
      const program = token ? await resolver.resolve(token) : null;
      if (!program) throw await refuse(request, reply);
      request.program = program;
      if (program.scope === 'read' && (request.method !== 'GET' || writes)) {
        throw new AppError('forbidden', 'This action is unauthorized: the API key is read-only.');
      }
      if (!programTypes?.includes(program.type)) {
        throw new AppError(
          'forbidden',
          `This endpoint is not available for ${programTypeLabel[program.type]} programs.`,
        );
      }
    } else if (auth === 'admin') {
      // Without ADMIN_TOKEN the admin API does not exist (contract §1).
      if (!adminDigest) throw routeNotFound(request);
      failures?.assertOpen(request.ip, reply);
      await adminRequests?.spend(request.ip, reply);
      const token = bearerToken(request);
      if (!token || !timingSafeEqual(sha256(token), adminDigest)) throw await refuse(request, reply);
    }
  });
});

/**
 * A per-address budget: `spend` counts one and throws 429 past the budget; `assertOpen` throws
 * 429 without counting while an address is known to be over it (kept in process until its
 * window ends, so a flood of bad keys costs no lookup).
 */
function budget(count: MinuteCounter, max: number) {
  const closedUntil = new Map<string, number>();
  const tooMany = (reply: FastifyReply, retryAfterMs: number) => {
    reply.header('retry-after', Math.max(1, Math.ceil(retryAfterMs / 1000)));
    return new AppError('rate_limited', 'Too Many Attempts.');
  };
  return {
    assertOpen(address: string, reply: FastifyReply) {
      const until = closedUntil.get(address);
      if (until === undefined) return;
      const left = until - Date.now();
      if (left > 0) throw tooMany(reply, left);
      closedUntil.delete(address);
    },
    async spend(address: string, reply: FastifyReply) {
      const counted = await count(address);
      if (!counted || counted.current <= max) return;
      if (closedUntil.size >= 10_000) closedUntil.clear();
      closedUntil.set(address, Date.now() + counted.ttl);
      throw tooMany(reply, counted.ttl);
    },
  };
}
