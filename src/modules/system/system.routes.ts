import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

const Health = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]) });

export async function systemRoutes(app: FastifyInstance) {
  app.get('/health', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getHealth',
      description:
        'Answers 200 `{"status":"ok"}` while the database answers a ping, else 503 `{"status":"unavailable"}`; needs no credentials, for load balancers and orchestrators.',
      summary: 'Liveness and database reachability',
      tags: ['System'],
      response: { 200: Health, 503: Health },
    },
    handler: async (_request, reply) => {
      const ok = await app.deps.database.ping();
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable' });
    },
  });

  app.get('/openapi.json', {
    config: { auth: 'public' },
    schema: { hide: true },
    handler: async () => app.swagger(),
  });
}
