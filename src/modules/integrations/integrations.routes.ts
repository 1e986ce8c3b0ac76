import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { programContext } from '../../http/context.ts';
import { baseUrl, paginated } from '../../http/pagination.ts';
import { errorResponses, Paginated, StatusOnly, Success } from '../../http/schemas.ts';
import {
  BillingEvent,
  BillingEventParams,
  Integration,
  ListBillingEventsQuery,
  ProviderParams,
  SaveIntegrationBody,
} from './integrations.schemas.ts';
import {
  deleteIntegration,
  getIntegration,
  listIntegrationEvents,
  listIntegrations,
  retryIntegrationEvent,
  saveIntegration,
} from './integrations.service.ts';

/** Programs with sales (affiliate and refer-a-friend) connect their billing system. */
const withSales = { auth: 'apiKey', programTypes: ['affiliate', 'referral'] } as const;
const tags = ['Integrations'];

export async function integrationsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/integrations', {
    config: withSales,
    schema: {
      operationId: 'listIntegrations',
      summary: "The program's billing integrations (Stripe, Paddle) with their endpoint URLs",
      tags,
      response: { 200: Success(Type.Array(Integration)), ...errorResponses },
    },
    handler: async (request) => ({
      data: await listIntegrations(programContext(request), { baseUrl: baseUrl(request) }),
      status: 1 as const,
    }),
  });

  app.get('/v1/integrations/events', {
    config: withSales,
    schema: {
      operationId: 'listIntegrationEvents',
      summary:
        'The received-events log: every event a processor delivered, newest first, with its status, reason and the transaction or customer it touched',
      tags,
      querystring: ListBillingEventsQuery,
      response: { 200: Paginated(BillingEvent), ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listIntegrationEvents(programContext(request), request.query)),
  });

  app.post('/v1/integrations/events/:id/retry', {
    config: withSales,
    schema: {
      operationId: 'retryIntegrationEvent',
      summary:
        'Run a `failed` or `unattributed` event again from what was received (after linking its customer, say) and return it',
      tags,
      params: BillingEventParams,
      response: { 200: Success(BillingEvent), ...errorResponses },
    },
    handler: async (request) => ({
      data: await retryIntegrationEvent(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.get('/v1/integrations/:provider', {
    config: withSales,
    schema: {
      operationId: 'getIntegration',
      summary: 'One billing integration',
      tags,
      params: ProviderParams,
      response: { 200: Success(Integration), ...errorResponses },
    },
    handler: async (request) => ({
      data: await getIntegration(programContext(request), request.params.provider, {
        baseUrl: baseUrl(request),
      }),
      status: 1 as const,
    }),
  });

  app.put('/v1/integrations/:provider', {
    config: withSales,
    schema: {
      operationId: 'saveIntegration',
      summary:
        "Connect a processor: its webhook signing secret (sealed, never shown again) and whether it is on; give the answer's `endpoint_url` to the processor",
      tags,
      params: ProviderParams,
      body: SaveIntegrationBody,
      response: { 200: Success(Integration), ...errorResponses },
    },
    handler: async (request) => ({
      data: await saveIntegration(programContext(request), request.params.provider, request.body, {
        baseUrl: baseUrl(request),
      }),
      status: 1 as const,
    }),
  });

  app.delete('/v1/integrations/:provider', {
    config: withSales,
    schema: {
      operationId: 'deleteIntegration',
      summary: 'Disconnect a processor: its events are refused (404) from now on; the events log stays',
      tags,
      params: ProviderParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteIntegration(programContext(request), request.params.provider);
      return { status: 1 as const };
    },
  });
}
