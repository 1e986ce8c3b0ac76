import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programTypes } from '../../core/program-types.ts';
import { programContext, variantInput } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, Paginated, StatusOnly, Success, withVariantExample } from '../../http/schemas.ts';
import { unwrapUpdate } from '../../http/update-body.ts';
import {
  CreateWebhookBodyByType,
  DeliveryParams,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdateWebhookBodyByType,
  Webhook,
  WebhookAttempt,
  WebhookKeyParams,
} from './webhooks.schemas.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  retryWebhookDelivery,
  testWebhook,
  updateWebhook,
} from './webhooks.service.ts';

const everyType = { auth: 'apiKey', programTypes } as const;
const tags = ['Webhooks'];

export async function webhookRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/webhooks', {
    config: {
      ...everyType,
      variants: {
        body: withVariantExample(CreateWebhookBodyByType, 'affiliate', {
          name: 'Order system',
          url: 'https://hooks.example.com/vouch',
          events: ['transaction.created', 'commission.approved'],
        }),
      },
    },
    schema: {
      operationId: 'createWebhook',
      description:
        'Subscribes an HTTPS URL to events of the program type; deliveries are signed (Standard Webhooks) with the `signature` secret shown in this answer.',
      summary: 'Subscribe a URL to events; the response carries the signing secret (`signature`)',
      tags,
      response: { 200: Success(Webhook), ...errorResponses },
    },
    handler: async (request) => ({
      data: await createWebhook(programContext(request), variantInput(request, CreateWebhookBodyByType).body),
      status: 1 as const,
    }),
  });

  app.get('/v1/webhooks', {
    config: everyType,
    schema: {
      operationId: 'listWebhooks',
      description: 'Lists the webhooks of the program; `signature` is shown to full-scope keys only.',
      summary: 'List webhooks',
      tags,
      querystring: ListWebhooksQuery,
      response: { 200: Paginated(Webhook), ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listWebhooks(programContext(request), request.query)),
  });

  app.get('/v1/webhooks/:key', {
    config: everyType,
    schema: {
      operationId: 'getWebhook',
      description: 'Answers a webhook by its key; `signature` is shown to full-scope keys only.',
      summary: 'Get a webhook',
      tags,
      params: WebhookKeyParams,
      response: { 200: Success(Webhook), ...errorResponses },
    },
    handler: async (request) => ({
      data: await getWebhook(programContext(request), request.params.key),
      status: 1 as const,
    }),
  });

  app.put('/v1/webhooks/:key', {
    config: {
      ...everyType,
      variants: { body: withVariantExample(UpdateWebhookBodyByType, 'affiliate', { is_active: false }) },
    },
    preValidation: unwrapUpdate,
    schema: {
      operationId: 'updateWebhook',
      description: 'Updates a webhook (name, url, is_active, events); omitted fields stay as they are.',
      summary: 'Update a webhook (name, url, is_active, events); omitted fields stay as they are',
      tags,
      params: WebhookKeyParams,
      response: { 200: Success(Webhook), ...errorResponses },
    },
    handler: async (request) => ({
      data: await updateWebhook(
        programContext(request),
        request.params.key,
        variantInput(request, UpdateWebhookBodyByType).body,
      ),
      status: 1 as const,
    }),
  });

  app.delete('/v1/webhooks/:key', {
    config: everyType,
    schema: {
      operationId: 'deleteWebhook',
      description: 'Deletes a webhook; its pending deliveries are dropped.',
      summary: 'Delete a webhook; its pending deliveries are dropped',
      tags,
      params: WebhookKeyParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteWebhook(programContext(request), request.params.key);
      return { status: 1 as const };
    },
  });

  app.get('/v1/webhooks/:key/deliveries', {
    config: everyType,
    schema: {
      operationId: 'listWebhookDeliveries',
      description:
        'Lists the delivery log, newest first: each attempt with its event, status, response code, duration, error and next attempt.',
      summary:
        'The delivery log: every attempt with its event, status, response code, duration, error and next attempt',
      tags,
      params: WebhookKeyParams,
      querystring: ListDeliveriesQuery,
      response: { 200: Paginated(WebhookAttempt), ...errorResponses },
    },
    handler: async (request) =>
      paginated(
        request,
        request.query,
        await listWebhookDeliveries(programContext(request), request.params.key, request.query),
      ),
  });

  app.post('/v1/webhooks/:key/test', {
    config: everyType,
    schema: {
      operationId: 'testWebhook',
      description:
        'Sends a sample of the first subscribed event now, even when the webhook is inactive, and answers the attempt.',
      summary: 'Send a sample of the first subscribed event now (even when inactive) and return the attempt',
      tags,
      params: WebhookKeyParams,
      response: { 200: Success(WebhookAttempt), ...errorResponses },
    },
    handler: async (request) => ({
      data: await testWebhook(programContext(request), request.params.key),
      status: 1 as const,
    }),
  });

  app.post('/v1/webhooks/:key/deliveries/:id/retry', {
    config: everyType,
    schema: {
      operationId: 'retryWebhookDelivery',
      description: 'Sends a delivery again now, with the same `webhook-id`, and answers the attempt.',
      summary: 'Send a delivery again now, with the same `webhook-id`, and return the attempt',
      tags,
      params: DeliveryParams,
      response: { 200: Success(WebhookAttempt), ...errorResponses },
    },
    handler: async (request) => ({
      data: await retryWebhookDelivery(programContext(request), request.params.key, request.params.id),
      status: 1 as const,
    }),
  });
}
