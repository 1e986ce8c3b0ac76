import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, Paginated, StatusOnly, Success, withExample } from '../../http/schemas.ts';
import { ReferralLink } from '../referral-links/referral-links.schemas.ts';
// A customer's sales keep its key (the transactions module's): renaming the default link renames it.
import { renameBuyerOfSales } from '../transactions/transactions.service.ts';
import {
  CreateCustomerReferralLinkBody,
  CustomerLinksQuery,
  CustomerReferralLinkParams,
  SearchCustomerReferralLinksQuery,
  UpdateCustomerReferralLinkBody,
} from './customers.links.schemas.ts';
import {
  createCustomerReferralLink,
  deleteCustomerReferralLink,
  getCustomerReferralLink,
  listCustomerReferralLinks,
  searchCustomerReferralLinks,
  updateCustomerReferralLink,
} from './customers.links.service.ts';
import { CustomerIdParams } from './customers.schemas.ts';

const policy = { auth: 'apiKey', programTypes: ['referral'] } as const;
const tags = ['Customer referral links'];

/** `/v1/customer_referral_links…` and `/v1/customers/{id}/referral_links` (refer-a-friend programs). */
export async function customerReferralLinksRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/customer_referral_links', {
    config: policy,
    schema: {
      operationId: 'createCustomerReferralLink',
      description: 'Adds a referral link to a refer-a-friend customer; its `key` is unique in the program.',
      summary: 'Add a referral link to a customer',
      tags,
      body: withExample(CreateCustomerReferralLinkBody, { key: 'amy-summer', customer: { id: 'amy' } }),
      response: { 200: Success(ReferralLink), ...errorResponses },
    },
    handler: async (request) => ({
      data: await createCustomerReferralLink(programContext(request), request.body),
      status: 1 as const,
    }),
  });

  app.get('/v1/customer_referral_links::search', {
    config: policy,
    schema: {
      operationId: 'searchCustomerReferralLinks',
      description:
        'Finds customer referral links by `id`/`key` or by customer (`customer[id]`, `customer[key]`, `customer[email]`).',
      summary: 'Search customer referral links by id, key or customer[id|key|email]',
      tags,
      querystring: SearchCustomerReferralLinksQuery,
      response: { 200: Paginated(ReferralLink), ...errorResponses },
    },
    handler: async (request) =>
      paginated(
        request,
        request.query,
        await searchCustomerReferralLinks(programContext(request), request.query),
      ),
  });

  app.get('/v1/customer_referral_links/:id', {
    config: policy,
    schema: {
      operationId: 'getCustomerReferralLink',
      description: 'Answers a customer referral link, named by its id, which is its key.',
      summary: 'Get a customer referral link by id (its key)',
      tags,
      params: CustomerReferralLinkParams,
      response: { 200: Success(ReferralLink), ...errorResponses },
    },
    handler: async (request) => ({
      data: await getCustomerReferralLink(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.put('/v1/customer_referral_links/:id', {
    config: policy,
    schema: {
      operationId: 'updateCustomerReferralLink',
      description:
        "Changes a link's key; changing the default link's key changes the customer's key with it.",
      summary: "Change a link's key (the default link's key is the customer's key: both change)",
      tags,
      params: CustomerReferralLinkParams,
      body: withExample(UpdateCustomerReferralLinkBody, { key: 'amy-autumn' }),
      response: { 200: Success(ReferralLink), ...errorResponses },
    },
    handler: async (request) => ({
      data: await updateCustomerReferralLink(
        programContext(request),
        request.params.id,
        request.body,
        renameBuyerOfSales,
      ),
      status: 1 as const,
    }),
  });

  app.delete('/v1/customer_referral_links/:id', {
    config: policy,
    schema: {
      operationId: 'deleteCustomerReferralLink',
      description: 'Removes a customer referral link; the default one cannot be removed (422).',
      summary: 'Remove a referral link (never the default one)',
      tags,
      params: CustomerReferralLinkParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteCustomerReferralLink(programContext(request), request.params.id);
      return { status: 1 as const };
    },
  });

  app.get('/v1/customers/:id/referral_links', {
    config: policy,
    schema: {
      operationId: 'listCustomerReferralLinks',
      description: "Lists a customer's referral links, its default link first.",
      summary: "A customer's referral links, default first",
      tags,
      params: CustomerIdParams,
      querystring: CustomerLinksQuery,
      response: { 200: Success(Type.Array(ReferralLink)), ...errorResponses },
    },
    handler: async (request) => ({
      data: await listCustomerReferralLinks(programContext(request), request.params.id, {
        limit: request.query.limit ?? 15,
        page: request.query.page ?? 1,
      }),
      status: 1 as const,
    }),
  });
}
