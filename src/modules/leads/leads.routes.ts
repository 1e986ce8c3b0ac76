import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isPlainObject } from '../../http/absent.ts';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, StatusOnly, withExample } from '../../http/schemas.ts';
import { unwrapUpdate } from '../../http/update-body.ts';
import {
  ConvertLeadBody,
  ConvertLeadQuery,
  CreateLeadBody,
  LeadIdParams,
  LeadListResponse,
  LeadResponse,
  LeadSetupResponse,
  ListLeadsQuery,
  RejectLeadBody,
  RejectLeadQuery,
  UpdateLeadSetupBody,
} from './leads.schemas.ts';
import {
  convertLead,
  createLead,
  deleteLead,
  getLead,
  getLeadSetup,
  listLeads,
  rejectLead,
  updateLeadSetup,
} from './leads.service.ts';

const policy = { auth: 'apiKey', programTypes: ['affiliate'] } as const;
/** Convert and reject change the lead even as GET requests: read-only keys may not call them. */
const writingGet = { ...policy, writes: true } as const;
const tags = ['Leads'];

/** PHP clients encode an empty map as `[]`: `"cfields": []` means no answers. */
async function emptyAnswers(request: FastifyRequest) {
  const body = request.body;
  if (isPlainObject(body) && Array.isArray(body.cfields) && body.cfields.length === 0) delete body.cfields;
}

/** `/v1/leads…` of affiliate programs. */
export async function leadsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/leads/details', {
    config: policy,
    schema: {
      operationId: 'getLeadSetup',
      description:
        'Answers whether leads are on, the commission a converted lead earns, and the custom form fields with their ids.',
      summary: 'The lead setup: whether leads are on, their commission and the custom form fields',
      tags,
      response: { 200: LeadSetupResponse, ...errorResponses },
    },
    handler: async (request) => ({ data: await getLeadSetup(programContext(request)), status: 1 as const }),
  });

  app.put('/v1/leads/details', {
    config: policy,
    preValidation: unwrapUpdate,
    schema: {
      operationId: 'updateLeadSetup',
      description:
        'Changes the lead setup (a Vouch extension): leads on or off, their commission and the form; listed fields keep their ids, missing ones are removed.',
      summary:
        'Change the lead setup (Vouch extension): leads on or off, their commission, the form; listed fields keep their ids',
      tags,
      body: withExample(UpdateLeadSetupBody, {
        leads_enabled: true,
        program_leads_commission_type: 'lead_specific',
        leads_commission: { currency: 'USD', commission: 50, commission_type: 'fixed' },
      }),
      response: { 200: LeadSetupResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await updateLeadSetup(programContext(request), request.body),
      status: 1 as const,
    }),
  });

  app.post('/v1/leads', {
    config: policy,
    preValidation: emptyAnswers,
    schema: {
      operationId: 'createLead',
      description:
        'Submits a lead for a partner (by `partner` id, key or email); `cfields` answers the custom form by field id. The lead starts `submitted`.',
      summary: "Submit a partner's lead; `cfields` answers the custom form by field id",
      tags,
      body: withExample(CreateLeadBody, {
        name: 'Jordan Lee',
        email: 'jordan@example.com',
        partner: { key: 'pat' },
      }),
      response: { 201: LeadResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createLead(programContext(request), request.body);
      return reply.code(201).send({ data, status: 1 });
    },
  });

  app.get('/v1/leads', {
    config: policy,
    schema: {
      operationId: 'listLeads',
      description: 'Lists leads, newest first; filter by `status`, `email` or `partner[id|key|email]`.',
      summary: 'List leads, newest first; filter by `status`, `email` or `partner[id|key|email]`',
      tags,
      querystring: ListLeadsQuery,
      response: { 200: LeadListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listLeads(programContext(request), request.query)),
  });

  app.get('/v1/leads/convert', {
    config: writingGet,
    schema: {
      operationId: 'convertLead',
      description:
        "Converts a lead: the submitting partner's customer (created, or reused by e-mail) records a sale of `commission_transaction_amount`. A GET that writes: a read-only key gets 403.",
      summary:
        'Convert a lead: its customer of the submitting partner (created or reused by e-mail) makes a sale of `commission_transaction_amount`',
      tags,
      querystring: ConvertLeadQuery,
      response: { 200: LeadResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await convertLead(programContext(request), request.query),
      status: 1 as const,
    }),
  });

  app.post('/v1/leads/convert', {
    config: policy,
    schema: {
      operationId: 'convertLeadByBody',
      description: 'Converts a lead named in a JSON body, as `GET /v1/leads/convert`.',
      summary: 'Convert a lead, named in a JSON body (contract §4.10)',
      tags,
      body: withExample(ConvertLeadBody, { id: 12, commission_transaction_amount: 499 }),
      response: { 200: LeadResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await convertLead(programContext(request), request.body),
      status: 1 as const,
    }),
  });

  app.get('/v1/leads/reject', {
    config: writingGet,
    schema: {
      operationId: 'rejectLead',
      description:
        'Rejects a submitted lead; a rejected lead can still be converted later. A GET that writes: a read-only key gets 403.',
      summary: 'Reject a submitted lead; it can still be converted later',
      tags,
      querystring: RejectLeadQuery,
      response: { 200: LeadResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await rejectLead(programContext(request), request.query),
      status: 1 as const,
    }),
  });

  app.post('/v1/leads/reject', {
    config: policy,
    schema: {
      operationId: 'rejectLeadByBody',
      description: 'Rejects a lead named in a JSON body, as `GET /v1/leads/reject`.',
      summary: 'Reject a lead, named in a JSON body (contract §4.10)',
      tags,
      body: withExample(RejectLeadBody, { id: 12 }),
      response: { 200: LeadResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await rejectLead(programContext(request), request.body),
      status: 1 as const,
    }),
  });

  app.get('/v1/leads/:id', {
    config: policy,
    schema: {
      operationId: 'getLead',
      description: 'Answers a lead with its form answers and status.',
      summary: 'Get a lead',
      tags,
      params: LeadIdParams,
      response: { 200: LeadResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getLead(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.delete('/v1/leads/:id', {
    config: policy,
    schema: {
      operationId: 'deleteLead',
      description: 'Deletes a lead; a sale its conversion recorded stays.',
      summary: 'Delete a lead; a sale its conversion recorded stays',
      tags,
      params: LeadIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteLead(programContext(request), request.params.id);
      return { status: 1 as const };
    },
  });
}
