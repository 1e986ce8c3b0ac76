import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, StatusOnly, withExample } from '../../http/schemas.ts';
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

const updatePartnerBodyWithExample = withExample(UpdatePartnerBody, {
  update: { name: 'Patricia', payout_method: 'paypal', payout_details: { email: 'pat@example.com' } },
});

/** `/v1/partners…` of affiliate programs. */
export async function partnersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/partners', {
    config: policy,
    schema: {
      operationId: 'createPartner',
      description:
        'Creates a partner with its default referral link (`key`, generated when omitted); `status` follows `partner_auto_approve` unless given. A taken `email` or `key` is a 422 on that field.',
      summary: 'Create a partner with its default referral link',
      tags,
      body: withExample(CreatePartnerBody, {
        email: 'pat@example.com',
        name: 'Pat',
        surname: 'Doe',
        key: 'pat',
        tags: ['blogger'],
      }),
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
      description:
        'Lists partners, newest first; filter by `status`, `approved` (`approved=false`: the applicants awaiting approval), `email` or `tags`. Archived partners appear only with `status=archived`.',
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
      description:
        'Finds partners by `id`, `email` or `key` (any of their referral keys), case-insensitively for e-mails; no match is an empty list.',
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
      description:
        'Queues an invitation e-mail with the program page link to an address; it creates no partner.',
      summary: 'Send an invitation e-mail to a prospective partner',
      tags,
      body: withExample(InvitePartnerBody, {
        email: 'newpartner@example.com',
        name: 'Robin',
        surname: 'Smith',
      }),
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
      description: 'Answers the one partner named by `id`, `key` or `email` in the query; none is a 404.',
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
      description:
        'Answers a partner, named by its id or any of its referral keys, with its referral figures and commission totals.',
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
      description:
        'Updates a partner; fields come wrapped in `update` or flat, omitted fields stay. An empty `tags` clears the tags; a taken `email` is a 422.',
      summary: 'Update a partner; the body is wrapped in `update` or flat. Empty `tags` clears them',
      tags,
      params: PartnerIdParams,
      body: updatePartnerBodyWithExample,
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
      description:
        'Updates the partner named by `id`, `email` or `key` in the body (the older form of `PUT /v1/partners/{id}`); fields come wrapped in `update` or flat.',
      summary: 'Update a partner named by `id`, `email` or `key` in the body',
      tags,
      body: updatePartnerBodyWithExample,
      response: { 200: PartnerResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updatePartner(programContext(request), undefined, request.body),
      status: 1 as const,
    }),
  });

  const statusChange = (
    path: string,
    operationId: string,
    summary: string,
    description: string,
    run: typeof archivePartner,
  ) =>
    app.post(path, {
      config: policy,
      schema: {
        operationId,
        summary,
        description,
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
    'Archives a partner: hidden from lists unless `status=archived`, and its links stop attributing clicks and sales.',
    archivePartner,
  );
  statusChange(
    '/v1/partners/:id/revoke-archive',
    'revokeArchivePartner',
    'Restore an archived partner to its previous status',
    'Restores an archived partner to the status it had before.',
    revokeArchivePartner,
  );
  statusChange(
    '/v1/partners/:id/approve',
    'approvePartner',
    'Approve a partner (Vouch extension)',
    'Sets a partner to `active` (a Vouch extension to the API).',
    approvePartner,
  );
  statusChange(
    '/v1/partners/:id/reject',
    'rejectPartner',
    'Reject a partner (Vouch extension)',
    'Sets a partner to `rejected` (a Vouch extension to the API): its links stop attributing.',
    rejectPartner,
  );

  app.delete('/v1/partners/:id', {
    config: policy,
    schema: {
      operationId: 'deletePartner',
      description: 'Deletes a partner and its referral links; commissions and sales it earned stay.',
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
      description:
        'Deletes the partner named by `id`, `email` or `key` in the body, with its referral links; its commissions stay.',
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
