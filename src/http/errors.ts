import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, validationError } from '../core/errors.ts';
import { fieldErrorsFromAjv } from './validation.ts';

export function routeNotFound(request: FastifyRequest): AppError {
  return new AppError('not_found', `The route ${request.url.split('?')[0]} could not be found.`);
}

const messageByStatus: Record<number, string> = {
  400: 'The request is malformed.',
  413: 'The request body is larger than 1 MiB.',
  415: 'Unsupported Content-Type: send JSON with Content-Type: application/json.',
  429: 'Too Many Attempts.',
};

/** Every error, ours or Fastify's, becomes `{message, errors, status: 0}` with the right status. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation) {
    // A path segment of the wrong shape names nothing that exists.
    if (fastifyError.validationContext === 'params') return new AppError('not_found', 'Not found.');
    return validationError(fieldErrorsFromAjv(fastifyError.validation as never));
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    const code =
      status === 413
        ? 'payload_too_large'
        : status === 415
          ? 'unsupported_media_type'
          : status === 429
            ? 'rate_limited'
            : status === 404
              ? 'not_found'
              : 'bad_request';
    return new AppError(code, messageByStatus[status] ?? fastifyError.message);
  }
  return new AppError('internal', 'Server Error.');
}

export const errorHandling = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply
      .code(appError.status)
      .send({ message: appError.message, errors: appError.fields, status: 0 });
  });

  app.setNotFoundHandler((request, reply) => {
    const allowed = request.server.routeTable.allowedMethods(request.url);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return reply.code(405).send({
        message: `The ${request.method} method is not supported for this route. Supported methods: ${allowed.join(', ')}.`,
        errors: {},
        status: 0,
      });
    }
    const notFound = routeNotFound(request);
    return reply.code(404).send({ message: notFound.message, errors: {}, status: 0 });
  });
});
