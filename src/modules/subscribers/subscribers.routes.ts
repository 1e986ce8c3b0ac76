import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { programContext } from '../../http/context.ts';
import { baseUrl, paginated } from '../../http/pagination.ts';
import { errorResponses, StatusOnly } from '../../http/schemas.ts';
import {
  CreateSubscriberBody,
  ListSubscribersQuery,
  SearchSubscribersQuery,
  SubscriberIdentifyQuery,
  SubscriberIdParams,
  SubscriberListResponse,
  SubscriberResponse,
  UpdateSubscriberBody,
} from './subscribers.schemas.ts';
import {
  createSubscriber,
  deleteSubscriber,
  getSubscriber,
  listSubscribers,
  searchSubscribers,
  updateSubscriber,
} from './subscribers.service.ts';

const policy = { auth: 'apiKey', programTypes: ['newsletter'] } as const;
const tags = ['Subscribers'];
const links = (request: FastifyRequest) => ({ baseUrl: baseUrl(request) });

/** `/v1/subscribers…` of newsletter programs. */
export async function subscribersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/subscribers', {
    config: policy,
    schema: {
      operationId: 'createSubscriber',
      summary: 'Create a subscriber, optionally referred by another (`referral` by `email` or `id`)',
      tags,
      body: CreateSubscriberBody,
      response: { 201: SubscriberResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { subscriber } = await createSubscriber(programContext(request), request.body, links(request));
      return reply.code(201).send({ data: subscriber, status: 1 });
    },
  });

  app.get('/v1/subscribers', {
    config: policy,
    schema: {
      operationId: 'listSubscribers',
      summary: 'List subscribers, newest first; `refer_status` keeps referred or non-referred ones',
      tags,
      querystring: ListSubscribersQuery,
      response: { 200: SubscriberListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(
        request,
        request.query,
        await listSubscribers(programContext(request), request.query, links(request)),
      ),
  });

  app.get('/v1/subscribers::search', {
    config: policy,
    schema: {
      operationId: 'searchSubscribers',
      summary: 'Search subscribers by id or e-mail (case-insensitive)',
      tags,
      querystring: SearchSubscribersQuery,
      response: { 200: SubscriberListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(
        request,
        request.query,
        await searchSubscribers(programContext(request), request.query, links(request)),
      ),
  });

  app.get('/v1/subscribers/:id', {
    config: policy,
    schema: {
      operationId: 'getSubscriber',
      summary: 'Get a subscriber by id or e-mail',
      tags,
      params: SubscriberIdParams,
      response: { 200: SubscriberResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getSubscriber(programContext(request), request.params.id, links(request)),
      status: 1 as const,
    }),
  });

  app.put('/v1/subscribers/:id', {
    config: policy,
    schema: {
      operationId: 'updateSubscriber',
      summary: 'Update a subscriber (by id or e-mail); the body is wrapped in `update` or flat',
      tags,
      params: SubscriberIdParams,
      body: UpdateSubscriberBody,
      response: { 200: SubscriberResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updateSubscriber(programContext(request), request.params.id, request.body, links(request)),
      status: 1 as const,
    }),
  });

  app.put('/v1/subscribers', {
    config: policy,
    schema: {
      operationId: 'updateSubscriberByBody',
      summary: 'Update a subscriber named by `id` or `email` in the body',
      tags,
      body: UpdateSubscriberBody,
      response: { 200: SubscriberResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updateSubscriber(programContext(request), undefined, request.body, links(request)),
      status: 1 as const,
    }),
  });

  app.delete('/v1/subscribers/:id', {
    config: policy,
    schema: {
      operationId: 'deleteSubscriber',
      summary: 'Delete a subscriber (by id or e-mail) permanently',
      tags,
      params: SubscriberIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteSubscriber(programContext(request), request.params.id, {}, links(request));
      return { status: 1 as const };
    },
  });

  app.delete('/v1/subscribers', {
    config: policy,
    schema: {
      operationId: 'deleteSubscriberByBody',
      summary: 'Delete a subscriber named by `id` or `email` in the body',
      tags,
      querystring: SubscriberIdentifyQuery,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteSubscriber(programContext(request), undefined, request.query, links(request));
      return { status: 1 as const };
    },
  });
}
