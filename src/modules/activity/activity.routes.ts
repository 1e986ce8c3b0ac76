import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses } from '../../http/schemas.ts';
import { ActivityListResponse, ListActivityQuery } from './activity.schemas.ts';
import { ApiWriteLog, listActivity } from './activity.service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The API's writes noted for the activity log (activity.service.ts). */
    apiWriteLog: ApiWriteLog;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `GET /v1/activity`, and the note of every successful `/v1` write made with an API key: the
 * app's (fastify-plugin) `onRoute` hook gives each `/v1` route that writes a response hook, which
 * notes in memory only.
 */
export const activityRoutes = fp(async (fastify: FastifyInstance) => {
  const log = new ApiWriteLog(fastify.deps);
  fastify.decorate('apiWriteLog', log);
  fastify.addHook('onClose', async () => log.close());
  const noteWrite: onResponseHookHandler = (request, reply, done) => {
    const program = request.program;
    if (program && reply.statusCode < 400 && program.keyPublicId !== '') {
      const params = request.params as { id?: unknown } | undefined;
      log.add(program.id, {
        actor: { kind: 'key', name: program.keyPublicId },
        action: `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`,
        subject: typeof params?.id === 'string' ? params.id : undefined,
        address: request.ip,
      });
    }
    done();
  };
  // Only the `/v1` routes that write carry the hook: a read runs nothing of it.
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.url.startsWith('/v1') || methods.every((method) => READS.has(method))) return;
    const own = route.onResponse;
    route.onResponse = own === undefined ? [noteWrite] : [...(Array.isArray(own) ? own : [own]), noteWrite];
  });

  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/v1/activity', {
    config: { auth: 'apiKey', programTypes: ['affiliate', 'referral', 'newsletter'] },
    schema: {
      operationId: 'listActivity',
      description:
        "The program's activity log, newest first: every write made in the owner console (who, what, the fields changed before → after, from which address) and every successful write of an API key (the key's name, the route, the record). A Vouch extension.",
      summary: 'The activity log: console and API-key writes, newest first',
      tags: ['Activity'],
      querystring: ListActivityQuery,
      response: { 200: ActivityListResponse, ...errorResponses },
    },
    handler: async (request) => {
      // This instance's own notes first, so a write is in the log its next read shows.
      await log.flush();
      return paginated(request, request.query, await listActivity(programContext(request), request.query));
    },
  });
});
