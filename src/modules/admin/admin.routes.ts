import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ListQuery, paginated } from '../../http/pagination.ts';
import { errorResponses, Paginated, StatusOnly, Success, withExample } from '../../http/schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../api-keys/api-keys.service.ts';
import { createProgram, getProgramOrThrow, listPrograms } from '../program/program.service.ts';
import {
  AdminProgram,
  ApiKey,
  ApiKeyIdParams,
  CreateApiKeyBody,
  CreatedApiKey,
  CreateProgramBody,
  ProgramIdParams,
} from './admin.schemas.ts';

const admin = { auth: 'admin' } as const;
const tags = ['Admin'];

/** The operator's API (contract §2): programs and their API keys, behind ADMIN_TOKEN. */
export async function adminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/admin/v1/programs', {
    config: admin,
    schema: {
      operationId: 'createProgram',
      description:
        'Creates a program (one tenant) of type `affiliate`, `referral` or `newsletter`; the type never changes. Needs the operator token (`ADMIN_TOKEN`), not an API key.',
      summary: 'Create a program (a tenant) of a fixed type',
      tags,
      body: withExample(CreateProgramBody, {
        name: 'Acme referrals',
        type: 'affiliate',
        website: 'https://shop.example.com',
      }),
      response: { 201: Success(AdminProgram), ...errorResponses },
    },
    handler: async (request, reply) => {
      const program = await createProgram(app.deps, request.body);
      return reply.code(201).send({ data: program, status: 1 });
    },
  });

  app.get('/admin/v1/programs', {
    config: admin,
    schema: {
      operationId: 'listPrograms',
      description:
        'Lists every program of this server, newest first, paginated like every list. Needs the operator token.',
      summary: 'List programs',
      tags,
      querystring: ListQuery('standard'),
      response: { 200: Paginated(AdminProgram), ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listPrograms(app.deps, request.query)),
  });

  app.get('/admin/v1/programs/:id', {
    config: admin,
    schema: {
      operationId: 'getProgram',
      description: 'Answers one program, named by its integer id or its public id. Needs the operator token.',
      summary: 'Get a program by id or public id',
      tags,
      params: ProgramIdParams,
      response: { 200: Success(AdminProgram), ...errorResponses },
    },
    handler: async (request) => ({
      data: await getProgramOrThrow(app.deps, request.params.id),
      status: 1 as const,
    }),
  });

  app.post('/admin/v1/programs/:id/api-keys', {
    config: admin,
    schema: {
      operationId: 'createApiKey',
      description:
        'Creates an API key of a program with scope `full` (default) or `read`; the token `vk_<id>_<secret>` is in this answer only and cannot be read again.',
      summary: 'Create an API key; its token is shown only in this response',
      tags,
      params: ProgramIdParams,
      body: withExample(CreateApiKeyBody, { name: 'Shop backend', scope: 'full' }),
      response: { 201: Success(CreatedApiKey), ...errorResponses },
    },
    handler: async (request, reply) => {
      const program = await getProgramOrThrow(app.deps, request.params.id);
      const key = await createApiKey(app.deps, program.id, request.body);
      return reply.code(201).send({ data: key, status: 1 });
    },
  });

  app.get('/admin/v1/programs/:id/api-keys', {
    config: admin,
    schema: {
      operationId: 'listApiKeys',
      description: 'Lists the API keys of a program with their names, scopes and use, never their tokens.',
      summary: "List a program's API keys (without tokens)",
      tags,
      params: ProgramIdParams,
      response: { 200: Success(Type.Array(ApiKey)), ...errorResponses },
    },
    handler: async (request) => {
      const program = await getProgramOrThrow(app.deps, request.params.id);
      return { data: await listApiKeys(app.deps, program.id), status: 1 as const };
    },
  });

  app.delete('/admin/v1/api-keys/:id', {
    config: admin,
    schema: {
      operationId: 'revokeApiKey',
      description: 'Revokes an API key; requests with it answer 401 within a second on every instance.',
      summary: 'Revoke an API key; it answers 401 within one second on every instance',
      tags,
      params: ApiKeyIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await revokeApiKey(app.deps, request.params.id);
      return { status: 1 as const };
    },
  });
}
