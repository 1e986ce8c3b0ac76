import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { programContext } from '../../http/context.ts';
import { baseUrl } from '../../http/pagination.ts';
import { errorResponses, StatusOnly, withExample } from '../../http/schemas.ts';
import { unlockForSubscribersPast } from '../subscribers/subscribers.service.ts';
import {
  CreateRewardBody,
  DeleteRewardQuery,
  ListRewardsQuery,
  RewardIdParams,
  RewardListResponse,
  RewardResponse,
  UpdateRewardBody,
} from './rewards.schemas.ts';
import { createReward, deleteReward, getReward, listRewards, updateReward } from './rewards.service.ts';

const policy = { auth: 'apiKey', programTypes: ['newsletter'] } as const;
const tags = ['Rewards'];

/** Subscribers past a reward's threshold unlock it: the subscribers module does that part. */
const unlockPast = (request: FastifyRequest) =>
  unlockForSubscribersPast(programContext(request), { baseUrl: baseUrl(request) });

/** `/v1/rewards…`: milestone rewards of newsletter programs. */
export async function rewardsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/rewards', {
    config: policy,
    schema: {
      operationId: 'createReward',
      description:
        'Creates a milestone reward, unlocked by each subscriber whose referrals reach `subscribers_count`; subscribers already past it unlock it at once.',
      summary:
        'Create a milestone reward, unlocked by subscribers with `subscribers_count` counting referrals',
      tags,
      body: withExample(CreateRewardBody, {
        name: 'Sticker pack',
        subscribers_count: 3,
        fulfillment_type: 'url_link',
        fulfillment_value: 'https://example.com/stickers',
      }),
      response: { 201: RewardResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createReward(programContext(request), request.body, unlockPast(request));
      return reply.code(201).send({ data, status: 1 });
    },
  });

  app.get('/v1/rewards', {
    config: policy,
    schema: {
      operationId: 'listRewards',
      description: 'Lists milestone rewards, newest first (without `times_triggered`).',
      summary: 'List rewards (without `times_triggered`), newest first',
      tags,
      querystring: ListRewardsQuery,
      response: { 200: RewardListResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await listRewards(programContext(request), request.query),
      status: 1 as const,
    }),
  });

  app.get('/v1/rewards/:id', {
    config: policy,
    schema: {
      operationId: 'getReward',
      description: 'Answers a reward with `times_triggered`, the number of subscribers who unlocked it.',
      summary: 'Get a reward with `times_triggered`',
      tags,
      params: RewardIdParams,
      response: { 200: RewardResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getReward(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.put('/v1/rewards', {
    config: policy,
    schema: {
      operationId: 'updateReward',
      description:
        'Updates the reward named by `id`; lowering its threshold unlocks it for subscribers already past it.',
      summary: 'Update the reward named by `id`; lowering its threshold unlocks it for subscribers past it',
      tags,
      body: withExample(UpdateRewardBody, { id: 7, update: { subscribers_count: 2 } }),
      response: { 200: RewardResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updateReward(programContext(request), request.body, unlockPast(request)),
      status: 1 as const,
    }),
  });

  app.delete('/v1/rewards', {
    config: policy,
    schema: {
      operationId: 'deleteReward',
      description: 'Deletes the reward named by `id` in the body; rewards already unlocked stay recorded.',
      summary: 'Delete the reward named by `id` in the body',
      tags,
      querystring: DeleteRewardQuery,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteReward(programContext(request), request.query.id);
      return { status: 1 as const };
    },
  });
}
