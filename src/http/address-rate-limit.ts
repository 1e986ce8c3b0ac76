import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from '../core/errors.ts';

const WINDOW_MS = 60_000;

/**
 * A per-client-address budget for public routes that take no API key (`POST /t/click`): `max`
 * requests a minute per address, in process or in Redis when `REDIS_URL` is set. One address that
 * floods spends only its own budget. The address is the socket's, or the proxy's `X-Forwarded-For`
 * when `TRUST_PROXY` is on. Registered as an `onRequest` hook of the routes that need it.
 */
export function perAddressLimit(app: FastifyInstance, max: number, name: string): onRequestHookHandler {
  if (max === 0) return (_request, _reply, done) => done();
  const redisUrl = app.deps.config.redisUrl;
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
  const store = redis
    ? new RedisStore(false, false, redis, `vouch-${name}:`)
    : new LocalStore(false, false, 50_000);
  return (request, reply, done) => {
    store.incr(
      request.ip,
      (error, count) => {
        // A budget we cannot count is not a reason to refuse service.
        if (error || !count) return done();
        const reset = Math.max(0, Math.ceil(count.ttl / 1000));
        if (count.current <= max) return done();
        reply.header('retry-after', reset);
        done(new AppError('rate_limited', 'Too Many Attempts.'));
      },
      WINDOW_MS,
      max,
    );
  };
}
