import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Deps } from '../context.ts';
import { routeNotFound } from '../http/errors.ts';
import { baseUrl } from '../http/pagination.ts';
import { Layout, renderDocument } from './layout.tsx';

/**
 * The page layer: server-rendered HTML pages for people (share page, subscriber portal, later the
 * partner portal). Everything a page needs beyond the JSON API — cookies, CSRF tokens, urlencoded
 * forms, a per-address rate limit, HTML error pages — is registered inside each page scope only,
 * so `/v1` requests never pay for it.
 */

/** Every page answer's security headers: nothing inline, nothing from elsewhere, never framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  // A program's logo may be an https URL of its own (core/branding.ts).
  "img-src 'self' https:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A page handler's refusal: rendered as the HTML page of its status. */
export class PageError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** What the error page says instead of its status's usual words. */
    readonly shown?: { title: string; text: string },
  ) {
    super(message);
    this.name = 'PageError';
  }
}

export const pageNotFound = () => new PageError(404, 'Page not found');

/** Where links point: `PUBLIC_URL`, else the request's own origin. */
export const linkBase = (request: FastifyRequest) => ({ baseUrl: baseUrl(request) });

/** What a page handler reads: the app's dependencies. */
export const pageDeps = (request: FastifyRequest): Deps => request.server.deps;

/** Sends a browser on after a successful form (303: the next request is a GET). */
export const seeOther = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).send();

/**
 * A sign-in session's cookie: `HttpOnly`, `SameSite=Lax` (a link from an e-mail opens signed in),
 * `Secure` when the request came over HTTPS, and only sent under `path`.
 */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  cookie: { name: string; value: string; path: string; days: number },
) {
  reply.setCookie(cookie.name, cookie.value, {
    path: cookie.path,
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: cookie.days * 24 * 60 * 60,
  });
}

/** Sends a rendered page with its status, HTML type and the page layer's headers. */
export function sendPage(reply: FastifyReply, status: number, tree: preact.VNode) {
  return sendHtml(reply, status, renderDocument(tree));
}

/** The page layer's headers, the same on every page answer: built once. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
} as const;

/** Sends a page's whole HTML document (as `renderDocument` gives it, or its UTF-8 bytes) like `sendPage`. */
export function sendHtml(reply: FastifyReply, status: number, html: string | Buffer) {
  return reply.code(status).headers(PAGE_HEADERS).send(html);
}

const errorTexts: Record<number, { title: string; text: string }> = {
  400: {
    title: 'The form could not be read',
    text: 'Go back, reload the page and send the form again.',
  },
  403: {
    title: 'This form has expired',
    text: 'For your security the form could not be accepted. Go back, reload the page and send it again.',
  },
  404: { title: 'Page not found', text: 'This link is not valid. Check that you copied the whole address.' },
  429: { title: 'Too many requests', text: 'Please wait a minute before you try again.' },
};

const serverError = {
  title: 'Something went wrong',
  text: 'The page could not be shown. Please try again in a moment.',
};

export function ErrorPage(props: { status: number; shown?: { title: string; text: string } | undefined }) {
  const { title, text } = props.shown ?? errorTexts[props.status] ?? serverError;
  return (
    <Layout title={title}>
      <div class="card">
        <h1>{title}</h1>
        <p>{text}</p>
      </div>
    </Layout>
  );
}

function statusOf(error: unknown): number {
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status !== 'number' || status < 400) return 500;
  // An invalid or missing CSRF token comes as 403; a malformed or oversized form as 400, 413, 415.
  if (status === 404 || status === 403 || status === 429) return status;
  return status >= 500 ? 500 : 400;
}

/** A page route's options: public (pages have no API key) and left out of the OpenAPI document. */
export const pageRoute = { config: { auth: 'public' }, schema: { hide: true } } as const;

/** A form's POST route: a page route whose CSRF token is checked before its handler. */
export const formRoute = (app: FastifyInstance) => ({ ...pageRoute, preHandler: app.csrfProtection });

/**
 * A page scope under `prefix`: the page plugins, then the module's page routes. A scope whose pages
 * have no form (`forms: false`) registers no cookie, CSRF or form-body plugin, so its requests run
 * none of their hooks (the cookie plugin's run on every request of a scope, form or not). With
 * `servedOn`, the scope's routes answer only when it says the request's host is one of theirs (a
 * program's own host name at `/`): any other host gets the API's 404 as if the routes did not
 * exist, before anything else of the scope runs; and the scope leaves 404s of unknown paths to
 * the app.
 */
export function definePages(
  prefix: string,
  routes: (app: FastifyInstance) => Promise<void>,
  options: { forms?: boolean; servedOn?: (request: FastifyRequest) => Promise<boolean> } = {},
) {
  const scope = async (app: FastifyInstance) => {
    const { servedOn } = options;
    if (servedOn)
      app.addHook('onRequest', async (request, reply) => {
        if (await servedOn(request)) return;
        return reply.code(404).send({ message: routeNotFound(request).message, errors: {}, status: 0 });
      });
    const { pagesRateLimitPerMinute: max, redisUrl } = app.deps.config;
    if (max > 0) {
      const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
      if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
      // Registered first in the scope, so every page route of it is limited (per client address).
      await app.register(rateLimit, {
        max,
        timeWindow: 60_000,
        keyGenerator: (request) => request.ip,
        ...(redis ? { redis, nameSpace: 'vouch-pages-rate-limit:', skipOnError: true } : {}),
        errorResponseBuilder: () => new PageError(429, 'Too many requests'),
      });
    }
    if (options.forms !== false) {
      await app.register(cookie);
      await app.register(csrf, {
        cookieKey: 'vouch_csrf',
        cookieOpts: { path: prefix || '/', sameSite: 'strict', httpOnly: true, secure: 'auto' },
      });
      await app.register(formbody, { bodyLimit: 16 * 1024 });
    }
    app.setErrorHandler((error, request, reply) => {
      const status = statusOf(error);
      if (status >= 500) request.log.error({ err: error }, 'page failed');
      const shown = error instanceof PageError ? error.shown : undefined;
      return sendPage(reply, status, <ErrorPage status={status} shown={shown} />);
    });
    // At the root, the app's own 404 (JSON) stays for every path that is not a page.
    if (prefix !== '')
      app.setNotFoundHandler((_request, reply) => sendPage(reply, 404, <ErrorPage status={404} />));
    await routes(app);
  };
  return async (app: FastifyInstance) => {
    await app.register(scope, { prefix });
  };
}
