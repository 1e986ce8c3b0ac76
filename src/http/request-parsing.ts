import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../core/errors.ts';
import { isPlainObject, stripAbsent } from './absent.ts';
import { VARIANTS_MARKER } from './validation.ts';

/** Largest request body accepted (413 above it). */
export const BODY_LIMIT = 1024 * 1024;

const unsupported = () =>
  new AppError(
    'unsupported_media_type',
    'Unsupported Content-Type: send JSON with Content-Type: application/json.',
  );

/**
 * How request bodies and parameters are read (contract §4.3, §4.6):
 * - JSON is the only body type; an empty body or `[]` means "nothing";
 * - GET and DELETE may carry a JSON body, whose keys fill in what the query string lacks;
 * - `null` and `""` on optional fields mean "not given".
 */
export const requestParsing = fp(async (app: FastifyInstance) => {
  // Clients send identify and search parameters as a JSON body on GET.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });

  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (request, body, done) => {
      const text = body as string;
      if (text.trim() === '') return done(null, undefined);
      parseJson(request, text, (error, parsed) => {
        if (error) return done(new AppError('bad_request', 'The request body is not valid JSON.'), undefined);
        done(null, Array.isArray(parsed) && parsed.length === 0 ? undefined : parsed);
      });
    },
  );
  // Anything else is fine only when there is nothing to parse (a GET with a stray Content-Type).
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(unsupported(), undefined);
  });

  app.addHook('preValidation', (request, _reply, done) => {
    const schema = request.routeOptions.schema as
      | Record<string, Record<string, unknown> | undefined>
      | undefined;
    if ((request.method === 'GET' || request.method === 'DELETE') && isPlainObject(request.body)) {
      request.query = { ...request.body, ...(request.query as object) };
    }
    request.query = stripAbsent(request.query, schema?.querystring);
    const bodySchema = schema?.body;
    if (bodySchema && !bodySchema[VARIANTS_MARKER]) {
      request.body = stripAbsent(request.body ?? {}, bodySchema);
    }
    done();
  });
});

/**
 * Response conventions (contract §4.1): `Content-Type: application/json` exactly, byte for byte
 * (one SDK compares it), and the request id on every response.
 */
export const responseConventions = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json'))
      reply.header('content-type', 'application/json');
    return payload;
  });
});
