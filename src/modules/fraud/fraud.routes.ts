import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, withExample } from '../../http/schemas.ts';
import { clearFraudFlag, confirmFraudFlag } from '../commissions/commissions.service.ts';
import {
  ConfirmFraudFlagBody,
  FraudFlagIdParams,
  FraudFlagListResponse,
  FraudFlagResponse,
  ListFraudFlagsQuery,
} from './fraud.schemas.ts';
import { getFraudFlag, listFraudFlags } from './fraud.service.ts';

// Every program type's referrals are checked: partners', referring customers', subscribers'.
const policy = { auth: 'apiKey', programTypes: ['affiliate', 'referral', 'newsletter'] } as const;
const tags = ['Fraud'];

/** `/v1/fraud/flags…`: the review queue of suspect referrals (issue 27; a Vouch extension). */
export async function fraudRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/fraud/flags', {
    config: policy,
    schema: {
      operationId: 'listFraudFlags',
      description: 'Lists fraud flags, newest first, filtered by `status`, `rule` and `partner`.',
      summary: 'List fraud flags (the review queue)',
      tags,
      querystring: ListFraudFlagsQuery,
      response: { 200: FraudFlagListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listFraudFlags(programContext(request), request.query)),
  });

  app.get('/v1/fraud/flags/:id', {
    config: policy,
    schema: {
      operationId: 'getFraudFlag',
      description: 'Answers one fraud flag with its evidence.',
      summary: 'Get a fraud flag',
      tags,
      params: FraudFlagIdParams,
      response: { 200: FraudFlagResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getFraudFlag(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.post('/v1/fraud/flags/:id/clear', {
    config: policy,
    schema: {
      operationId: 'clearFraudFlag',
      description:
        'Clears an open flag (not fraud): the commissions it held follow the normal rules again. A confirmed flag cannot be cleared (422).',
      summary: 'Clear a fraud flag: its held commissions follow the normal rules again',
      tags,
      params: FraudFlagIdParams,
      response: { 200: FraudFlagResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await clearFraudFlag(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.post('/v1/fraud/flags/:id/confirm', {
    config: policy,
    schema: {
      operationId: 'confirmFraudFlag',
      description:
        'Confirms an open flag (fraud): with `deny` (default) the commissions it held are denied; with `archive_owner` its partner is archived too. A cleared flag cannot be confirmed (422).',
      summary: 'Confirm a fraud flag: deny its held commissions, optionally archive its partner',
      tags,
      params: FraudFlagIdParams,
      body: withExample(ConfirmFraudFlagBody, { deny: true, archive_owner: false }),
      response: { 200: FraudFlagResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await confirmFraudFlag(programContext(request), request.params.id, request.body ?? {}),
      status: 1 as const,
    }),
  });
}
