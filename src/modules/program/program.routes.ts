import type { FastifyInstance } from 'fastify';
import { programTypes } from '../../core/program-types.ts';
import { programContext, variantInput } from '../../http/context.ts';
import { baseUrl } from '../../http/pagination.ts';
import { errorResponses } from '../../http/schemas.ts';
import {
  KeyCheckResponse,
  ProgramOverviewByType,
  UpdateProgramBodyByType,
  UpdateProgramResponse,
} from './program.schemas.ts';
import { getKeyCheck, getProgramOverview, updateProgram } from './program.service.ts';

const everyType = { auth: 'apiKey', programTypes } as const;

export async function programRoutes(app: FastifyInstance) {
  app.get('/v1/program', {
    config: { ...everyType, variants: { response: ProgramOverviewByType } },
    schema: {
      operationId: 'getProgramOverview',
      summary: 'The program, its settings and its 30-day statistics',
      tags: ['Program'],
      response: { ...errorResponses },
    },
    handler: async (request) => ({
      data: await getProgramOverview(programContext(request), { baseUrl: baseUrl(request) }),
      status: 1,
    }),
  });

  app.get('/v1/program/overview', {
    config: { ...everyType, variants: { response: ProgramOverviewByType } },
    schema: {
      operationId: 'getProgramOverviewDeprecated',
      summary: 'Same as GET /v1/program (deprecated)',
      tags: ['Program'],
      deprecated: true,
      response: { ...errorResponses },
    },
    handler: async (request, reply) => {
      reply.header('deprecation', 'true').header('link', '</v1/program>; rel="successor-version"');
      return {
        data: await getProgramOverview(programContext(request), { baseUrl: baseUrl(request) }),
        status: 1,
      };
    },
  });

  app.put('/v1/program', {
    config: { ...everyType, variants: { body: UpdateProgramBodyByType } },
    schema: {
      operationId: 'updateProgram',
      summary: 'Update the name, website and settings; omitted fields stay as they are',
      tags: ['Program'],
      response: { 200: UpdateProgramResponse, ...errorResponses },
    },
    handler: async (request) => {
      await updateProgram(programContext(request), variantInput(request, UpdateProgramBodyByType).body);
      return { status: 1 as const, message: 'Program updated successfully' };
    },
  });

  app.get('/v1/test', {
    config: everyType,
    schema: {
      operationId: 'getKeyCheck',
      summary: 'Check an API key: the program it belongs to',
      tags: ['Program'],
      response: { 200: KeyCheckResponse, ...errorResponses },
    },
    handler: async (request) => ({ data: await getKeyCheck(programContext(request)), status: 1 as const }),
  });
}
