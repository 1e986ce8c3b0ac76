import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../core/errors.ts';
import { programTypeLabel } from '../core/program-types.ts';
import { ApiKeyResolver } from '../modules/api-keys/api-keys.service.ts';
import { routeNotFound } from './errors.ts';

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
  const adminDigest = app.deps.config.adminToken ? sha256(app.deps.config.adminToken) : undefined;
  app.decorateRequest('program', null);

  app.addHook('onRequest', async (request) => {
    const { auth, programTypes } = request.routeOptions.config;
    if (auth === 'apiKey') {
      const token = bearerToken(request);
      const program = token ? await resolver.resolve(token) : null;
      if (!program) throw new AppError('unauthenticated', 'Unauthenticated.');
      request.program = program;
      if (program.scope === 'read' && request.method !== 'GET') {
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
      const token = bearerToken(request);
      if (!token || !timingSafeEqual(sha256(token), adminDigest)) {
        throw new AppError('unauthenticated', 'Unauthenticated.');
      }
    }
  });
});
