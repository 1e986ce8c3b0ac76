import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.ts';
import { programTypes } from '../../core/program-types.ts';
import { programContext } from '../../http/context.ts';
import { errorBody, toAppError } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { getLogoFile, LOGO_TOO_LARGE, removeLogo, uploadLogo } from './program.logo.service.ts';
import { LogoResponse, RemoveLogoResponse } from './program.schemas.ts';

/**
 * The program's logo: `PUT /v1/program/logo` takes the image itself as the body (its Content-Type
 * one of PNG, JPEG, SVG), `DELETE` removes it, and `/logos/{program}/{digest}` serves it to pages
 * and e-mails.
 */

const everyType = { auth: 'apiKey', programTypes } as const;

/**
 * The uploaded bytes by request, out of sight of the generic body steps (they rebuild any object
 * body key by key): the body itself stays empty.
 */
const uploads = new WeakMap<FastifyRequest, Buffer>();

/** Accepted a little above the limit, so a logo too large is told so by the service's own words. */
const READ_LIMIT = 1024 * 1024;

/**
 * Served with the type it was stored as, never sniffed, and a policy that lets an SVG opened on its
 * own neither run nor load anything. The URL changes with the file: cached for a year.
 */
const LOGO_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'cross-origin',
  'cache-control': 'public, max-age=31536000, immutable',
} as const;

const extension = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/svg+xml': 'svg' } as Record<
  string,
  string
>;

async function uploadScope(fastify: FastifyInstance) {
  // Any type is read as bytes: the service says which types it takes (422), not a bare 415.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: READ_LIMIT }, (request, body, done) => {
    uploads.set(request, body as Buffer);
    done(null, undefined);
  });
  fastify.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    const appError = status === 413 ? new AppError('payload_too_large', LOGO_TOO_LARGE) : toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(appError.status).send(errorBody(appError));
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.put('/v1/program/logo', {
    config: everyType,
    // The body is the file: checked by the service, not by a JSON schema.
    validatorCompiler: () => () => true,
    schema: {
      operationId: 'uploadProgramLogo',
      description:
        "Stores the program's logo, replacing any: the body is the image itself, with its Content-Type `image/png`, `image/jpeg` or `image/svg+xml`, at most 512 KB (413 above). The type is checked against the content (422 `logo` otherwise); an SVG is cleaned of scripts, event attributes and outside references before it is stored. Pages and e-mails show it instead of `logo_url`. A Vouch extension.",
      summary: "Upload the program's logo (PNG, JPEG or SVG, at most 512 KB)",
      tags: ['Program'],
      consumes: ['image/png', 'image/jpeg', 'image/svg+xml'],
      body: {
        type: 'string',
        format: 'binary',
        examples: [
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#0f766e"/></svg>',
        ],
      },
      response: { 200: LogoResponse, ...errorResponses },
    },
    handler: async (request) => {
      const body = uploads.get(request) ?? Buffer.alloc(0);
      const declared = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      return { data: await uploadLogo(programContext(request), body, declared), status: 1 as const };
    },
  });
}

export async function programLogoRoutes(fastify: FastifyInstance) {
  await fastify.register(uploadScope);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.delete('/v1/program/logo', {
    config: everyType,
    schema: {
      operationId: 'removeProgramLogo',
      description:
        'Removes the uploaded logo; pages and e-mails show `logo_url` again, if set. 404 when there is none. A Vouch extension.',
      summary: "Remove the program's uploaded logo",
      tags: ['Program'],
      response: { 200: RemoveLogoResponse, ...errorResponses },
    },
    handler: async (request) => {
      await removeLogo(programContext(request));
      return { status: 1 as const, message: 'Logo removed' };
    },
  });

  app.get<{ Params: { program: string; digest: string } }>('/logos/:program/:digest', {
    config: { auth: 'public' },
    schema: { hide: true },
    handler: async (request, reply) => {
      const { program, digest } = request.params;
      const logo = await getLogoFile(request.server.deps, program);
      if (!logo) throw new AppError('not_found', 'Logo not found.');
      // An older URL (an e-mail sent before the logo changed) is sent on to the current one.
      if (logo.digest !== digest)
        return reply.code(302).header('cache-control', 'no-cache').header('location', logo.digest).send();
      const etag = `"${logo.digest}"`;
      reply.headers(LOGO_HEADERS).header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply
        .type(logo.content_type)
        .header('content-disposition', `inline; filename="logo.${extension[logo.content_type] ?? 'bin'}"`)
        .send(logo.body);
    },
  });
}
