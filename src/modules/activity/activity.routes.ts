import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
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
 * `GET /v1/activity`, and the note of every successful `/v1` write made with an API key. The hook
 * is the app's (fastify-plugin), so it sees every route; it notes in memory only.
 */
export const activityRoutes = fp(async (fastify: FastifyInstance) => {
  const log = new ApiWriteLog(fastify.deps);
  fastify.decorate('apiWriteLog', log);
  fastify.addHook('onClose', async () => log.close());
  fastify.addHook('onResponse', (request, reply, done) => {
    const program = request.program;
    if (program && !READS.has(request.method) && reply.statusCode < 400 && program.keyPublicId !== '') {
      const params = request.params as { id?: unknown } | undefined;
      log.add(program.id, {
        actor: { kind: 'key', name: program.keyPublicId },
        action: `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`,
        subject: typeof params?.id === 'string' ? params.id : undefined,
        address: request.ip,
      });
    }
    done();
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
