import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { errorResponses, StatusOnly, Success, withExample } from '../../http/schemas.ts';
import {
  CustomerReferrals,
  CustomerReferralsQuery,
  CustomerStats,
  InviteCustomerBody,
} from './customers.referrer.schemas.ts';
import {
  archiveCustomer,
  getCustomerStats,
  inviteCustomer,
  listCustomerReferrals,
  revokeArchiveCustomer,
} from './customers.referrer.service.ts';
import { CustomerIdParams } from './customers.schemas.ts';

const policy = { auth: 'apiKey', programTypes: ['referral'] } as const;
const tags = ['Customers'];

/** Customer endpoints of refer-a-friend programs only: archive, invite, stats, referrals. */
export async function referralCustomersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/customers::invite', {
    config: policy,
    schema: {
      operationId: 'inviteCustomer',
      description: 'Queues an invitation e-mail to an address through the outbox; it creates no customer.',
      summary: 'Send an invitation e-mail (queued through the outbox)',
      tags,
      body: withExample(InviteCustomerBody, { email: 'friend@example.com', name: 'Sam' }),
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await inviteCustomer(programContext(request), request.body);
      return { status: 1 as const };
    },
  });

  app.post('/v1/customers/:id/archive', {
    config: policy,
    schema: {
      operationId: 'archiveCustomer',
      description: 'Archives a customer (a soft delete): hidden from lists, and its links stop attributing.',
      summary: 'Archive a customer (soft delete): hidden from lists, its links stop attributing',
      tags,
      params: CustomerIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await archiveCustomer(programContext(request), request.params.id);
      return { status: 1 as const };
    },
  });

  app.post('/v1/customers/:id/revoke-archive', {
    config: policy,
    schema: {
      operationId: 'revokeArchiveCustomer',
      description: 'Brings an archived customer back with status `active`.',
      summary: 'Bring an archived customer back (status `active`)',
      tags,
      params: CustomerIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await revokeArchiveCustomer(programContext(request), request.params.id);
      return { status: 1 as const };
    },
  });

  app.get('/v1/customers/:id/stats', {
    config: policy,
    schema: {
      operationId: 'getCustomerStats',
      description:
        "Answers the customer's referral figures (clicks, signups, sales) and each of its links with its clicks.",
      summary: "The customer's referral figures and links",
      tags,
      params: CustomerIdParams,
      response: { 200: Success(CustomerStats), ...errorResponses },
    },
    handler: async (request) => ({
      data: await getCustomerStats(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.get('/v1/customers/:id/referrals', {
    config: policy,
    schema: {
      operationId: 'listCustomerReferrals',
      description: 'Lists the customers this customer referred, newest first.',
      summary: 'The customers this customer referred, newest first',
      tags,
      params: CustomerIdParams,
      querystring: CustomerReferralsQuery,
      response: { 200: Success(CustomerReferrals), ...errorResponses },
    },
    handler: async (request) => ({
      data: await listCustomerReferrals(programContext(request), request.params.id, {
        limit: request.query.limit ?? 100,
        page: request.query.page ?? 1,
      }),
      status: 1 as const,
    }),
  });
}
