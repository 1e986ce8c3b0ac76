import type { FastifyRequest } from 'fastify';
import type { ProgramContext } from '../context.ts';
import { AppError } from '../core/errors.ts';

/** The service context of an authenticated `/v1` request. */
export function programContext(request: FastifyRequest): ProgramContext {
  if (!request.program) throw new AppError('unauthenticated', 'Unauthenticated.');
  return { ...request.server.deps, program: request.program };
}
