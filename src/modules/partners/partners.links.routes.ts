import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, StatusOnly, withExample } from '../../http/schemas.ts';
import {
  CreatePartnerLinkBody,
  DomainArrayResponse,
  DomainsQuery,
  LinkArrayResponse,
  LinkIdParams,
  LinkListResponse,
  LinkResponse,
  LinksQuery,
  SearchPartnerLinksQuery,
  UpdatePartnerLinkBody,
} from './partners.links.schemas.ts';
import {
  createPartnerLink,
  deletePartnerLink,
  getPartnerLink,
  listLinkDomains,
  listPartnerLinks,
  searchPartnerLinks,
  updatePartnerLink,
} from './partners.links.service.ts';

const policy = { auth: 'apiKey', programTypes: ['affiliate'] } as const;
const tags = ['Partner referral links'];

/** `/v1/partner_referral_links…` and `/v1/partners/{id}/referral_links`. */
export async function partnerReferralLinksRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/partner_referral_links::domains', {
    config: policy,
    schema: {
      operationId: 'listLinkDomains',
      description:
        'Lists the domains referral links may use: the program website (id `null`) first, then the additional ones.',
      summary: 'Link domains: the default (the program website, id null) and the additional ones',
      tags,
      querystring: DomainsQuery,
      response: { 200: DomainArrayResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await listLinkDomains(programContext(request), request.query),
      status: 1 as const,
    }),
  });

  app.get('/v1/partner_referral_links::search', {
    config: policy,
    schema: {
      operationId: 'searchPartnerLinks',
      description:
        'Finds partner referral links by `id`/`key`, or by partner (`partner[id]`, `partner[key]`, `partner[email]`).',
      summary: 'Search partner links by id/key or by partner (id, key or email)',
      tags,
      querystring: SearchPartnerLinksQuery,
      response: { 200: LinkListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await searchPartnerLinks(programContext(request), request.query)),
  });

  app.post('/v1/partner_referral_links', {
    config: policy,
    schema: {
      operationId: 'createPartnerLink',
      description:
        'Adds a referral link to a partner; its `key` is unique in the program (422 when taken) and generated when omitted.',
      summary: 'Add a referral link to a partner',
      tags,
      body: withExample(CreatePartnerLinkBody, { key: 'pat-blog', partner: { email: 'pat@example.com' } }),
      response: { 201: LinkResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createPartnerLink(programContext(request), request.body);
      return reply.code(201).send({ data, status: 1 });
    },
  });

  app.get('/v1/partner_referral_links/:id', {
    config: policy,
    schema: {
      operationId: 'getPartnerLink',
      description: 'Answers a partner referral link, named by its id, which is its key.',
      summary: 'Get a partner referral link by its id (its key)',
      tags,
      params: LinkIdParams,
      response: { 200: LinkResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getPartnerLink(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.put('/v1/partner_referral_links/:id', {
    config: policy,
    schema: {
      operationId: 'updatePartnerLink',
      description: 'Changes the key of a partner referral link; a taken key is a 422.',
      summary: 'Change the key of a partner referral link',
      tags,
      params: LinkIdParams,
      body: withExample(UpdatePartnerLinkBody, { key: 'pat-newsletter' }),
      response: { 200: LinkResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updatePartnerLink(programContext(request), request.params.id, request.body),
      status: 1 as const,
    }),
  });

  app.delete('/v1/partner_referral_links/:id', {
    config: policy,
    schema: {
      operationId: 'deletePartnerLink',
      description: "Deletes a partner referral link; the partner's default link cannot be deleted (422).",
      summary: "Delete a partner referral link (never the partner's default link)",
      tags,
      params: LinkIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deletePartnerLink(programContext(request), request.params.id);
      return { status: 1 as const };
    },
  });

  app.get('/v1/partners/:id/referral_links', {
    config: policy,
    schema: {
      operationId: 'listPartnerLinks',
      description: "Lists a partner's referral links, its default link first.",
      summary: "A partner's referral links, the default first",
      tags,
      params: LinkIdParams,
      querystring: LinksQuery,
      response: { 200: LinkArrayResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await listPartnerLinks(programContext(request), request.params.id, request.query),
      status: 1 as const,
    }),
  });
}
