import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { AppError } from '../core/errors.ts';

const WINDOW_MS = 60_000;
const POLICY = 'per-key';

/**
 * Per-API-key budget of `RATE_LIMIT_PER_MINUTE`, counted in Redis when `REDIS_URL` is set so that
 * every instance draws on one budget. Counting is @fastify/rate-limit's; the answer carries the
 * IETF `RateLimit` and `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers), which
 * this hook writes from the plugin's draft-spec headers.
 */
export const rateLimiting = fp(async (app: FastifyInstance) => {
  const { rateLimitPerMinute, redisUrl } = app.deps.config;
  if (rateLimitPerMinute === 0) return;
  const redis = redisUrl
    ? new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true })
    : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));

  await app.register(rateLimit, {
    global: true,
    max: rateLimitPerMinute,
    timeWindow: WINDOW_MS,
    hook: 'onRequest',
    enableDraftSpec: true,
    ...(redis ? { redis, nameSpace: 'vouch-rate-limit:' } : {}),
    // Only API-key routes are limited; authentication (an earlier hook) has set the program.
    allowList: (request) => request.program === null,
    keyGenerator: (request) => request.program?.keyPublicId ?? '',
    errorResponseBuilder: () => new AppError('rate_limited', 'Too Many Attempts.'),
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    const limit = reply.getHeader('ratelimit-limit');
    if (limit === undefined) return done(null, payload);
    const remaining = reply.getHeader('ratelimit-remaining');
    const reset = reply.getHeader('ratelimit-reset');
    reply.removeHeader('ratelimit-limit');
    reply.removeHeader('ratelimit-remaining');
    reply.removeHeader('ratelimit-reset');
    reply.header('ratelimit-policy', `"${POLICY}";q=${limit};w=${WINDOW_MS / 1000}`);
    reply.header('ratelimit', `"${POLICY}";r=${remaining};t=${reset}`);
    done(null, payload);
  });
});
