import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { ProgramContext } from '../context.ts';
import { AppError } from '../core/errors.ts';

/** The service context of an authenticated `/v1` request. */
export function programContext(request: FastifyRequest): ProgramContext {
  if (!request.program) throw new AppError('unauthenticated', 'Unauthenticated.');
  return { ...request.server.deps, program: request.program };
}

/** A variant route's body with its program type: `{type, body}`, the body typed by that type's schema. */
export type VariantInput<Variants extends Record<string, TSchema>> = {
  [Type in keyof Variants]: { type: Type; body: Static<Variants[Type]> };
}[keyof Variants];

/**
 * The body of a route declared with `config.variants.body`, which http/program-variants.ts
 * validated against exactly the caller's program type's schema: the one place that says so to
 * the type checker, so services take typed bodies.
 */
export function variantInput<Variants extends Record<string, TSchema>>(
  request: FastifyRequest,
  _variants: Variants,
): VariantInput<Variants> {
  if (!request.program) throw new AppError('unauthenticated', 'Unauthenticated.');
  return { type: request.program.type, body: request.body } as VariantInput<Variants>;
}
