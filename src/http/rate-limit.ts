import type { RateLimitCount } from '@fastify/rate-limit/store/LocalStore.js';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { AppError } from '../core/errors.ts';

const WINDOW_MS = 60_000;
const POLICY = 'per-key';

/**
 * Per-API-key budget of `RATE_LIMIT_PER_MINUTE` in fixed one-minute windows, counted by
 * @fastify/rate-limit's stores: in process, or in Redis when `REDIS_URL` is set so that every
 * instance draws on one budget. Every authenticated response carries the IETF `RateLimit` and
 * `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers); a spent budget answers 429
 * with `Retry-After`. The hook runs after authentication, which names the key.
 */
/**
 * A one-minute fixed-window counter of `max` per name, in process or in Redis when `REDIS_URL`
 * is set (shared by every instance). Answers the count, or undefined when it cannot be counted
 * (a budget we cannot count is not a reason to refuse service).
 */
export type MinuteCounter = (name: string) => Promise<RateLimitCount | undefined>;

export function minuteCounter(app: FastifyInstance, prefix: string, max: number): MinuteCounter {
  const { redisUrl } = app.deps.config;
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
  const store = redis ? new RedisStore(false, false, redis, prefix) : new LocalStore(false, false, 50_000);
  return (name) =>
    new Promise((resolve) =>
      store.incr(
        name,
        (error, count) => {
          if (error || !count) app.log.warn({ err: error }, 'rate limit store unavailable');
          resolve(error ? undefined : count);
        },
        WINDOW_MS,
        max,
      ),
    );
}

export const rateLimiting = fp(async (app: FastifyInstance) => {
  const { rateLimitPerMinute: max, redisUrl } = app.deps.config;
  if (max === 0) return;
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
  const store = redis
    ? new RedisStore(false, false, redis, 'vouch-rate-limit:')
    : new LocalStore(false, false, 50_000);
  const policy = `"${POLICY}";q=${max};w=${WINDOW_MS / 1000}`;

  app.addHook('onRequest', (request, reply, done) => {
    const key = request.program?.keyPublicId;
    if (!key) return done();
    store.incr(
      key,
      (error, count) => {
        // A budget we cannot count is not a reason to refuse service.
        if (error || !count) {
          request.log.warn({ err: error }, 'rate limit store unavailable');
          return done();
        }
        const reset = Math.max(0, Math.ceil(count.ttl / 1000));
        reply.header('ratelimit-policy', policy);
        reply.header('ratelimit', `"${POLICY}";r=${Math.max(0, max - count.current)};t=${reset}`);
        if (count.current <= max) return done();
        reply.header('retry-after', reset);
        done(new AppError('rate_limited', 'Too Many Attempts.'));
      },
      WINDOW_MS,
      max,
    );
  });
});
