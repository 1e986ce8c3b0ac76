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
      description:
        "Lists the program's Stripe and Paddle connections, each with the endpoint URL to give the processor and the last four characters of its signing secret (the secret itself is never returned).",
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
      description:
        'Every event a processor delivered, newest first, paginated, filtered by `provider` and `status` (`processed`, `ignored`, `unattributed`, `failed`, `pending`), with the reason and the transaction or customer it touched.',
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
      description:
        'Runs a `failed` or `unattributed` event again from the body that was received, for example after its customer was linked; any other status is a 422 on `id`, an unknown id a 404.',
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
      description:
        'One connection by provider (`stripe` or `paddle`); a provider that is not connected answers 404.',
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
      description:
        'Connects a processor or changes its connection: the webhook signing secret (sealed with `SECRET_KEY`, never shown again) and `active`. Read-scope keys are refused.',
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
      description:
        'Disconnects a processor: its deliveries answer 404 from now on, and the events log stays.',
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
