import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses } from '../../http/schemas.ts';
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

/** `/v1/commissions…` of affiliate programs (a Vouch extension of `/v1`). */
export async function commissionsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/commissions', {
    config: policy,
    schema: {
      operationId: 'listCommissions',
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
      summary: 'Create a manual commission (a bonus or a correction), approved at once',
      tags,
      body: CreateCommissionBody,
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
      summary:
        'Approve up to 500 commissions at once: all of them, or none (422 names each that cannot move)',
      tags,
      body: ReviewCommissionsBody,
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
      summary: 'Deny up to 500 commissions at once, with an optional reason: all of them, or none',
      tags,
      body: ReviewCommissionsBody,
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
