import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import qs from 'qs';
import type { Deps } from './context.ts';
import { closeDeps } from './deps.ts';
import { authenticate } from './http/authenticate.ts';
import { clientErrorHandler, errorHandling, frameworkErrorHandler } from './http/errors.ts';
import { openApi } from './http/openapi.ts';
import { programVariants } from './http/program-variants.ts';
import { rateLimiting } from './http/rate-limit.ts';
import { BODY_LIMIT, requestParsing, responseConventions } from './http/request-parsing.ts';
import { routePolicy } from './http/route-policy.ts';
import { serializerCompiler } from './http/serialization.ts';
import { validatorCompiler } from './http/validation.ts';
import { routePlugins } from './modules/index.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The HTTP application: plugins in the order they must run, then every module's routes. */
export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log,
    // One line per request at most: failures are logged by the error handler, successes only at debug.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: false,
    // Requests arriving while the server drains answer 503 in the contract's error body
    // (http/errors.ts), not in Fastify's own format.
    return503OnClosing: false,
    // Slow or idle clients cannot hold connections (issue 9): Node closes a connection whose
    // headers, or whole request, have not arrived in time (408), and idle keep-alive sockets.
    // Fastify's default requestTimeout of 0 would also turn off Node's header timeout.
    requestTimeout: deps.config.requestTimeoutMs,
    keepAliveTimeout: deps.config.keepAliveTimeoutMs,
    http: {
      headersTimeout: deps.config.headersTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(deps.config.headersTimeoutMs / 2)),
    },
    // Behind a proxy: client addresses (rate limits by address) and HTTPS (Secure cookies) from X-Forwarded-*.
    trustProxy: deps.config.trustProxy,
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Bracket nesting (`partner[id]=x`); a repeated key keeps its last value, so a client that
    // appends `limit` to a `next` link that already has one still gets what it asked for.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: {
      // Long enough for every id a schema allows (they answer 404 by their maxLength); longer
      // segments answer 404 through frameworkErrors.
      maxParamLength: 1000,
      querystringParser: (query) => qs.parse(query, { duplicates: 'last', depth: 5, arrayLimit: 100 }),
    },
  });
  app.decorate('deps', deps);
  app.server.maxConnections = deps.config.maxConnections;
  // What the deps hold for this app (the webhook sender) goes with it; the database stays open
  // for its owner, which closes it after the app.
  app.addHook('onClose', async () => closeDeps(deps));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(errorHandling);
  await app.register(responseConventions);
  await app.register(requestParsing);
  await app.register(routePolicy);
  await app.register(programVariants);
  await app.register(openApi);
  // Authentication before rate limiting: the budget is per API key.
  await app.register(authenticate);
  await app.register(rateLimiting);

  // One line per request, only when asked for: at the default level the hook is not even installed.
  if (deps.config.logLevel === 'debug' || deps.config.logLevel === 'trace') {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.debug(
        { method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime },
        'request',
      );
      done();
    });
  }

  for (const plugin of routePlugins) await app.register(plugin);
  return app as unknown as FastifyInstance;
}
