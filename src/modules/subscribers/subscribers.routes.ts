import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { programContext } from '../../http/context.ts';
import { baseUrl, paginated } from '../../http/pagination.ts';
import { errorResponses, StatusOnly, withExample } from '../../http/schemas.ts';
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

const updateSubscriberBodyWithExample = withExample(UpdateSubscriberBody, {
  email: 'ann@example.com',
  update: { name: 'Annie' },
});

/** `/v1/subscribers…` of newsletter programs. */
export async function subscribersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/subscribers', {
    config: policy,
    schema: {
      operationId: 'createSubscriber',
      description:
        'Creates a subscriber, optionally referred by another (`referral` by `email` or `id`); referrals unlock milestone rewards. The same e-mail again replays the stored subscriber (201).',
      summary: 'Create a subscriber, optionally referred by another (`referral` by `email` or `id`)',
      tags,
      body: withExample(CreateSubscriberBody, {
        email: 'ann@example.com',
        name: 'Ann',
        referral: { email: 'ben@example.com' },
      }),
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
      description:
        'Lists subscribers, newest first; `refer_status` keeps referred or non-referred ones (another value is a 404).',
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
      description: 'Finds subscribers by `id` or e-mail (case-insensitively); no match is an empty list.',
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
      description:
        'Answers a subscriber by id, then by e-mail, with its referral count and share and portal links.',
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
      description:
        'Updates a subscriber named by id or e-mail; fields come wrapped in `update` or flat, omitted fields stay.',
      summary: 'Update a subscriber (by id or e-mail); the body is wrapped in `update` or flat',
      tags,
      params: SubscriberIdParams,
      body: updateSubscriberBodyWithExample,
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
      description:
        'Updates the subscriber named by `id` or `email` in the body; fields come wrapped in `update` or flat.',
      summary: 'Update a subscriber named by `id` or `email` in the body',
      tags,
      body: updateSubscriberBodyWithExample,
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
      description: 'Deletes a subscriber permanently; the referral counts it added stay with its referrer.',
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
      description: 'Deletes the subscriber named by `id` or `email` in the body.',
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
