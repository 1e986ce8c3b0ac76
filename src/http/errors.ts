import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../core/errors.ts';
import { renderFieldErrors, summarizeFieldErrors } from '../core/messages.ts';
import { validationErrorFromAjv } from './validation.ts';

export function routeNotFound(request: FastifyRequest): AppError {
  return new AppError('not_found', `The route ${request.url.split('?')[0]} could not be found.`);
}

const messageByStatus: Record<number, string> = {
  400: 'The request is malformed.',
  408: 'The request took too long to arrive.',
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
    return validationErrorFromAjv(fastifyError.validation as never);
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
            : status === 408
              ? 'request_timeout'
              : status === 404
                ? 'not_found'
                : 'bad_request';
    return new AppError(code, messageByStatus[status] ?? fastifyError.message);
  }
  return new AppError('internal', 'Server Error.');
}

/**
 * The body of an error answer. The one place field problems are worded: a 422's `message` is
 * Laravel's summary of its `errors`.
 */
export function errorBody(error: AppError) {
  if (error.code !== 'validation_failed') return { message: error.message, errors: {}, status: 0 as const };
  const errors = renderFieldErrors(error.problems);
  return { message: summarizeFieldErrors(errors, error.total), errors, status: 0 as const };
}

export const errorHandling = fp(async (app: FastifyInstance) => {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    // /health answers in its own shape, so a load balancer sees it going away.
    if (request.routeOptions.url === '/health') return reply.code(503).send({ status: 'unavailable' });
    throw new AppError('unavailable', 'The server is shutting down; retry the request.');
  });

  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(appError.status).send(errorBody(appError));
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

const errorBodyText = (message: string) => JSON.stringify({ message, errors: {}, status: 0 });

/**
 * Errors Fastify raises before a route is found (`frameworkErrors`): a URL that does not decode
 * (`%ZZ`) is malformed (400); a path parameter beyond the router's length bound names nothing
 * that exists (404, as a too-long id that reached its route would).
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const notFound = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const body = errorBodyText(notFound ? 'Not found.' : 'The request URL is malformed.');
  // Written raw: no route means no reply hooks, and Fastify would add a charset to the type.
  reply.hijack();
  reply.raw.writeHead(notFound ? 404 : 400, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': request.id,
  });
  reply.raw.end(body);
}

/**
 * Errors Node's HTTP parser raises on a connection (`clientErrorHandler`): a timeout while the
 * request was still arriving (408), anything else unreadable (400), in the contract's error body.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const body = errorBodyText(
    timeout
      ? 'The request took too long to arrive.'
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are too large.'
        : 'The request is malformed.',
  );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${timeout ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
