import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, withExample } from '../../http/schemas.ts';
import {
  CommissionArrayResponse,
  CommissionIdParams,
  CommissionListResponse,
  CommissionResponse,
  CreateCommissionBody,
  ListCommissionsQuery,
  ReviewCommissionsBody,
} from './commissions.schemas.ts';
import {
  createCommission,
  getCommission,
  listCommissions,
  reviewCommissions,
} from './commissions.service.ts';

const policy = { auth: 'apiKey', programTypes: ['affiliate'] } as const;
const tags = ['Commissions'];

const reviewCommissionsBodyWithExample = withExample(ReviewCommissionsBody, {
  ids: [101, 102],
  reason: 'Checked against the order log',
});

/** `/v1/commissions…` of affiliate programs (a Vouch extension of `/v1`). */
export async function commissionsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/commissions', {
    config: policy,
    schema: {
      operationId: 'listCommissions',
      description:
        'Lists commissions, newest first; filter by partner, `status`, transaction, currency or creation time.',
      summary: 'List commissions, newest first; by partner, status, transaction, currency, creation time',
      tags,
      querystring: ListCommissionsQuery,
      response: { 200: CommissionListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listCommissions(programContext(request), request.query)),
  });

  app.post('/v1/commissions', {
    config: policy,
    schema: {
      operationId: 'createCommission',
      description:
        'Creates a manual commission for a partner (a bonus or a correction), approved at once; a negative amount is a correction.',
      summary: 'Create a manual commission (a bonus or a correction), approved at once',
      tags,
      body: withExample(CreateCommissionBody, {
        partner: { email: 'pat@example.com' },
        amount: 25,
        currency: 'USD',
        description: 'Launch bonus',
      }),
      response: { 201: CommissionResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createCommission(programContext(request), request.body);
      return reply.code(201).send({ data, status: 1 });
    },
  });

  app.post('/v1/commissions/approve', {
    config: policy,
    schema: {
      operationId: 'approveCommissions',
      description:
        'Approves up to 500 pending commissions at once: all of them or none (a 422 names each that cannot move).',
      summary:
        'Approve up to 500 commissions at once: all of them, or none (422 names each that cannot move)',
      tags,
      body: reviewCommissionsBodyWithExample,
      response: { 200: CommissionArrayResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await reviewCommissions(programContext(request), 'approve', request.body),
      status: 1 as const,
    }),
  });

  app.post('/v1/commissions/deny', {
    config: policy,
    schema: {
      operationId: 'denyCommissions',
      description:
        'Denies up to 500 commissions at once, with an optional reason: all of them or none; a paid commission cannot be denied.',
      summary: 'Deny up to 500 commissions at once, with an optional reason: all of them, or none',
      tags,
      body: reviewCommissionsBodyWithExample,
      response: { 200: CommissionArrayResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await reviewCommissions(programContext(request), 'deny', request.body),
      status: 1 as const,
    }),
  });

  app.get('/v1/commissions/:id', {
    config: policy,
    schema: {
      operationId: 'getCommission',
      description: 'Answers a commission with its partner, transaction and status history fields.',
      summary: 'Get a commission',
      tags,
      params: CommissionIdParams,
      response: { 200: CommissionResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getCommission(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });
}
