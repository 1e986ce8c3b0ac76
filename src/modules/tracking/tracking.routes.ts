import fastifyCookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.ts';
import { perAddressLimit } from '../../http/address-rate-limit.ts';
import { ErrorBody, errorResponses, withExample } from '../../http/schemas.ts';
import {
  ClickAnswer,
  LinkKeyParams,
  NotFoundPage,
  NotModified,
  PreflightAnswer,
  ProgramLinkKeyParams,
  Redirect,
  ReportClickBody,
  ScriptBody,
} from './tracking.schemas.ts';
import {
  type ClickRequest,
  clickTrackerOf,
  followLink,
  type LinkAnswer,
  reportClick,
  trackingScript,
} from './tracking.service.ts';

const tags = ['Tracking'];
const publicRoute = { auth: 'public' } as const;

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link not found</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style>
</head><body><h1>Link not found</h1><p>This referral link does not exist or is no longer active.</p></body></html>
`;

const clickRequest = (request: FastifyRequest, landingUrl?: string): ClickRequest => ({
  method: request.method,
  headers: request.headers,
  address: request.ip,
  landingUrl,
});

/** `/r/…` as the visitor asked for it, when it has a query string: the click's landing URL. */
const ownUrl = (request: FastifyRequest) =>
  request.url.includes('?') ? `${request.protocol}://${request.host}${request.url}` : undefined;

const sendNotFoundPage = (reply: FastifyReply) =>
  reply.code(404).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_FOUND_PAGE);

function sendLinkAnswer(request: FastifyRequest, reply: FastifyReply, answer: LinkAnswer) {
  reply.header('cache-control', 'no-store');
  if ('notFound' in answer) return sendNotFoundPage(reply);
  for (const cookie of [answer.cookie, answer.click]) {
    if (!cookie) continue;
    reply.setCookie(cookie.name, cookie.value, {
      path: '/',
      maxAge: cookie.maxAgeSeconds,
      sameSite: 'lax',
      secure: request.protocol === 'https',
      httpOnly: false,
    });
  }
  return reply.redirect(answer.location, 302);
}

/**
 * The public side of click tracking: `/r/{key}` redirects, `/js/vouch.js`, `POST /t/click`.
 * No API key; cookies and the text/plain body the script sends exist only in this scope.
 */
export async function trackingRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tracker = clickTrackerOf(app.deps);
  app.addHook('onClose', async () => tracker.close());
  await app.register(fastifyCookie);
  // The script posts text/plain (a simple request, no preflight) carrying JSON.
  app.addContentTypeParser(
    'text/plain',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(new AppError('bad_request', 'The request body is not valid JSON.'), undefined);
      }
    },
  );

  const cookieOf = (request: FastifyRequest) => (name: string) => request.cookies[name];
  /** `/r/{key}` and `/r/{program}/{key}`, for GET and HEAD alike. */
  const follow = async (
    request: FastifyRequest<{ Params: { key: string; program?: string } }>,
    reply: FastifyReply,
  ) =>
    sendLinkAnswer(
      request,
      reply,
      await followLink(app.deps, tracker, {
        key: request.params.key,
        ...(request.params.program !== undefined ? { programPublicId: request.params.program } : {}),
        request: clickRequest(request, ownUrl(request)),
        cookie: cookieOf(request),
      }),
    );
  // A path that does not decode (`%ZZ`) is refused before any route, as JSON like every 400.
  const redirects = { 302: Redirect, 400: ErrorBody, 404: NotFoundPage };
  // A key no link can have (a NUL in it) is refused by the shared input checks as "not found":
  // a visitor gets the same page as for any unknown key, not a JSON error.
  app.setErrorHandler((error, request, reply) => {
    const isLink = request.routeOptions.url?.startsWith('/r/') ?? false;
    if (isLink && error instanceof AppError && error.code === 'not_found') return sendNotFoundPage(reply);
    throw error;
  });

  app.get('/r/:key', {
    config: publicRoute,
    schema: {
      operationId: 'followReferralLink',
      description:
        'Follows a referral link: counts the click (once per visitor and link in 24 hours; bots, HEAD and prefetches never), sets the referral cookie (with the click id in `vouch_click`; a query string on the link is kept as the click\'s landing URL) and redirects. A key the program does not know answers the HTML "Link not found" page.',
      summary:
        'Follow a referral link: counts the click, stores the key in the `vouch_partner` / `vouch_referral` cookie and redirects (302) to the stored target',
      tags,
      params: LinkKeyParams,
      response: redirects,
    },
    handler: follow,
  });
  app.get('/r/:program/:key', {
    config: publicRoute,
    schema: {
      operationId: 'followProgramReferralLink',
      description:
        'Follows a referral link of one program, as `/r/{key}`; an unknown key in a known program redirects to its website without a cookie.',
      summary: 'Follow a referral link of one program (for keys two programs share): as `/r/{key}`',
      tags,
      params: ProgramLinkKeyParams,
      response: redirects,
    },
    handler: follow,
  });
  // Link checkers ask with HEAD: the same answer, never counted (core/tracking.ts isCountable).
  app.head('/r/:key', {
    config: publicRoute,
    schema: { hide: true, params: LinkKeyParams },
    handler: follow,
  });
  app.head('/r/:program/:key', {
    config: publicRoute,
    schema: { hide: true, params: ProgramLinkKeyParams },
    handler: follow,
  });

  // Anything deeper under /r/ (a traversal attempt, a key with a slash) names no link.
  app.get('/r/*', {
    config: publicRoute,
    schema: { hide: true, response: { 404: NotFoundPage } },
    handler: async (_request, reply) => sendNotFoundPage(reply),
  });

  app.get('/js/vouch.js', {
    config: publicRoute,
    schema: {
      operationId: 'getTrackingScript',
      description:
        'Answers the tracking script for the company website, with an `ETag` (304 when unchanged) and an hour of caching.',
      summary:
        'The tracking script for the company site: stores the key of `?aff=` / `?ref=` in a first-party cookie, reports the click, fills `vouch_referral` inputs',
      tags,
      response: { 200: ScriptBody, 304: NotModified },
    },
    handler: async (request, reply) => {
      const { body, etag } = trackingScript();
      reply.header('etag', etag).header('cache-control', 'public, max-age=3600');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      return reply.type('text/javascript; charset=utf-8').send(body);
    },
  });

  const limit = perAddressLimit(app, app.deps.config.clickRateLimitPerMinute, 'clicks');
  const cors = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('vary', 'origin');
  };

  app.options('/t/click', {
    config: publicRoute,
    schema: { hide: true, response: { 200: PreflightAnswer } },
    onRequest: cors,
    handler: async (_request, reply) => {
      reply.header('access-control-allow-methods', 'POST, OPTIONS');
      reply.header('access-control-allow-headers', 'content-type');
      reply.header('access-control-max-age', '86400');
      return { status: 1 as const };
    },
  });

  app.post('/t/click', {
    config: publicRoute,
    schema: {
      operationId: 'reportClick',
      description:
        'Reports a visit from the tracking script: counts the click as `/r/{key}` does, keeps the landing `url` with it and answers the cookie to store and the click id. Public, CORS-enabled and rate-limited per client address; takes JSON sent as `text/plain` too.',
      summary:
        'Report a visit from the tracking script (public, CORS, rate-limited per client address); answers the cookie to store',
      tags,
      body: withExample(ReportClickBody, {
        program: 'Ab12Cd34Ef56',
        key: 'pat',
        url: 'https://shop.example.com/?aff=pat',
      }),
      response: { 200: ClickAnswer, ...errorResponses },
    },
    onRequest: [cors, limit],
    handler: async (request) => ({
      data: await reportClick(app.deps, tracker, {
        program: request.body.program,
        key: request.body.key,
        request: clickRequest(request, request.body.url),
      }),
      status: 1 as const,
    }),
  });
}
