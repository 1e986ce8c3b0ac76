import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, StatusOnly } from '../../http/schemas.ts';
import { settleDueCommissions } from '../commissions/commissions.service.ts';
import { dropPartnerFromPayouts } from '../payouts/payouts.service.ts';
import {
  CreatePartnerBody,
  InvitePartnerBody,
  ListPartnersQuery,
  PartnerDetailResponse,
  PartnerIdentifyQuery,
  PartnerIdParams,
  PartnerListResponse,
  PartnerResponse,
  SearchPartnersQuery,
  UpdatePartnerBody,
} from './partners.schemas.ts';
import {
  approvePartner,
  archivePartner,
  createPartner,
  deletePartner,
  findPartner,
  getPartner,
  invitePartner,
  listPartners,
  rejectPartner,
  revokeArchivePartner,
  searchPartners,
  updatePartner,
} from './partners.service.ts';

const policy = { auth: 'apiKey', programTypes: ['affiliate'] } as const;
const tags = ['Partners'];

/** `/v1/partners…` of affiliate programs. */
export async function partnersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/partners', {
    config: policy,
    schema: {
      operationId: 'createPartner',
      summary: 'Create a partner with its default referral link',
      tags,
      body: CreatePartnerBody,
      response: { 201: PartnerResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createPartner(programContext(request), request.body);
      return reply.code(201).send({ data, status: 1 });
    },
  });

  app.get('/v1/partners', {
    config: policy,
    schema: {
      operationId: 'listPartners',
      summary: 'List partners, newest first; archived ones only with `status=archived`',
      tags,
      querystring: ListPartnersQuery,
      response: { 200: PartnerListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listPartners(programContext(request), request.query)),
  });

  app.get('/v1/partners::search', {
    config: policy,
    schema: {
      operationId: 'searchPartners',
      summary: 'Search partners by id, email or key (any referral key of the partner)',
      tags,
      querystring: SearchPartnersQuery,
      response: { 200: PartnerListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await searchPartners(programContext(request), request.query)),
  });

  app.post('/v1/partners::invite', {
    config: policy,
    schema: {
      operationId: 'invitePartner',
      summary: 'Send an invitation e-mail to a prospective partner',
      tags,
      body: InvitePartnerBody,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await invitePartner(programContext(request), request.body);
      return { status: 1 as const };
    },
  });

  app.get('/v1/partner', {
    config: policy,
    schema: {
      operationId: 'findPartner',
      summary: 'Get one partner named by `id`, `key` or `email` in the query',
      tags,
      querystring: PartnerIdentifyQuery,
      response: { 200: PartnerDetailResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await findPartner(programContext(request), request.query, settleDueCommissions),
      status: 1 as const,
    }),
  });

  app.get('/v1/partners/:id', {
    config: policy,
    schema: {
      operationId: 'getPartner',
      summary: 'Get a partner (by id, or by one of its referral keys) with its referrals and commissions',
      tags,
      params: PartnerIdParams,
      response: { 200: PartnerDetailResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getPartner(programContext(request), request.params.id, settleDueCommissions),
      status: 1 as const,
    }),
  });

  app.put('/v1/partners/:id', {
    config: policy,
    schema: {
      operationId: 'updatePartner',
      summary: 'Update a partner; the body is wrapped in `update` or flat. Empty `tags` clears them',
      tags,
      params: PartnerIdParams,
      body: UpdatePartnerBody,
      response: { 200: PartnerResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updatePartner(programContext(request), request.params.id, request.body),
      status: 1 as const,
    }),
  });

  app.put('/v1/partners', {
    config: policy,
    schema: {
      operationId: 'updatePartnerByBody',
      summary: 'Update a partner named by `id`, `email` or `key` in the body',
      tags,
      body: UpdatePartnerBody,
      response: { 200: PartnerResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updatePartner(programContext(request), undefined, request.body),
      status: 1 as const,
    }),
  });

  const statusChange = (path: string, operationId: string, summary: string, run: typeof archivePartner) =>
    app.post(path, {
      config: policy,
      schema: {
        operationId,
        summary,
        tags,
        params: PartnerIdParams,
        response: { 200: StatusOnly, ...errorResponses },
      },
      handler: async (request) => {
        await run(programContext(request), request.params.id);
        return { status: 1 as const };
      },
    });
  statusChange(
    '/v1/partners/:id/archive',
    'archivePartner',
    'Archive a partner (hidden from lists, links stop attributing)',
    archivePartner,
  );
  statusChange(
    '/v1/partners/:id/revoke-archive',
    'revokeArchivePartner',
    'Restore an archived partner to its previous status',
    revokeArchivePartner,
  );
  statusChange(
    '/v1/partners/:id/approve',
    'approvePartner',
    'Approve a partner (Vouch extension)',
    approvePartner,
  );
  statusChange(
    '/v1/partners/:id/reject',
    'rejectPartner',
    'Reject a partner (Vouch extension)',
    rejectPartner,
  );

  app.delete('/v1/partners/:id', {
    config: policy,
    schema: {
      operationId: 'deletePartner',
      summary: 'Delete a partner and its referral links',
      tags,
      params: PartnerIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deletePartner(programContext(request), request.params.id, {}, dropPartnerFromPayouts);
      return { status: 1 as const };
    },
  });

  app.delete('/v1/partners', {
    config: policy,
    schema: {
      operationId: 'deletePartnerByBody',
      summary: 'Delete a partner named by `id`, `email` or `key` in the body',
      tags,
      querystring: PartnerIdentifyQuery,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deletePartner(programContext(request), undefined, request.query, dropPartnerFromPayouts);
      return { status: 1 as const };
    },
  });
}
