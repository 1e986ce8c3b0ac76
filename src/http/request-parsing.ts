import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../core/errors.ts';
import { isPlainObject, stripAbsent } from './absent.ts';
import {
  assertAcceptableInput,
  MAX_JSON_DEPTH,
  oversizedArrayPath,
  screenJsonText,
  tooManyItems,
} from './input-limits.ts';
import { VARIANTS_MARKER } from './validation.ts';

/** Largest request body accepted (413 above it). */
export const BODY_LIMIT = 1024 * 1024;

const unsupported = () =>
  new AppError(
    'unsupported_media_type',
    'Unsupported Content-Type: send JSON with Content-Type: application/json.',
  );

/** Bodies whose text screenJsonText found clean: no walk for NULs and long arrays needed. */
const cleanBodies = new WeakSet<object>();

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
      // Checked on the text: every later step (absent-value stripping, validation) recurses.
      const screened = screenJsonText(text);
      if (screened === 'too-many') {
        const schema = request.routeOptions.schema as Record<string, Record<string, unknown>> | undefined;
        return done(tooManyItems(oversizedArrayPath(text), schema?.body ?? schema?.querystring), undefined);
      }
      if (screened === 'too-deep') {
        return done(
          new AppError(
            'bad_request',
            `The request body is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`,
          ),
          undefined,
        );
      }
      parseJson(request, text, (error, parsed) => {
        if (error) return done(new AppError('bad_request', 'The request body is not valid JSON.'), undefined);
        if (screened === 'clean' && typeof parsed === 'object' && parsed !== null) cleanBodies.add(parsed);
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
    try {
      // A path id with a NUL names nothing that can exist (and PostgreSQL cannot compare it).
      const params = request.params as Record<string, unknown> | undefined;
      if (params && Object.values(params).some((v) => typeof v === 'string' && v.includes('\u0000'))) {
        throw new AppError('not_found', 'Not found.');
      }
      assertAcceptableInput(request.query, schema?.querystring);
      const body = request.body;
      if (!(typeof body === 'object' && body !== null && cleanBodies.has(body))) {
        assertAcceptableInput(body, schema?.body ?? schema?.querystring);
      }
    } catch (error) {
      return done(error as Error);
    }
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
