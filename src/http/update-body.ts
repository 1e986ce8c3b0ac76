import type { FastifyRequest } from 'fastify';
import { isPlainObject } from './absent.ts';

/**
 * Contract §4.7: update bodies come flat or wrapped as `{"update": {...}}`. As a route's
 * `preValidation`, it unwraps the second form so one flat schema validates both.
 */
export async function unwrapUpdate(request: FastifyRequest) {
  const body = request.body;
  if (isPlainObject(body) && isPlainObject(body.update)) request.body = body.update;
}
