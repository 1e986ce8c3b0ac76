import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programTypes } from '../../core/program-types.ts';
import { programContext, variantInput } from '../../http/context.ts';
import { baseUrl } from '../../http/pagination.ts';
import { unionOfVariants } from '../../http/program-variants.ts';
import { errorResponses, withVariantExample } from '../../http/schemas.ts';
import { getProgramOverview } from './program.overview.ts';
import {
  KeyCheckResponse,
  ProgramOverviewByType,
  UpdateProgramBodyByType,
  UpdateProgramResponse,
} from './program.schemas.ts';
import { getKeyCheck, updateProgram } from './program.service.ts';

const everyType = { auth: 'apiKey', programTypes } as const;

const ProgramOverviewResponse = unionOfVariants(ProgramOverviewByType);

export async function programRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/v1/program', {
    config: { ...everyType, variants: { response: ProgramOverviewByType } },
    schema: {
      operationId: 'getProgramOverview',
      description:
        'Answers the program with its settings (defaults filled in) and the figures of the last 30 days against the 30 before (`_before`, `_growth` in percent). Its shape depends on the program type.',
      summary: 'The program, its settings and its 30-day statistics',
      tags: ['Program'],
      response: { 200: ProgramOverviewResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getProgramOverview(programContext(request), { baseUrl: baseUrl(request) }),
      status: 1 as const,
    }),
  });

  app.get('/v1/program/overview', {
    config: { ...everyType, variants: { response: ProgramOverviewByType } },
    schema: {
      operationId: 'getProgramOverviewDeprecated',
      description:
        'Answers exactly as `GET /v1/program`, with a `Deprecation` header and a `Link` to its successor.',
      summary: 'Same as GET /v1/program (deprecated)',
      tags: ['Program'],
      deprecated: true,
      response: { 200: ProgramOverviewResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      reply.header('deprecation', 'true').header('link', '</v1/program>; rel="successor-version"');
      return {
        data: await getProgramOverview(programContext(request), { baseUrl: baseUrl(request) }),
        status: 1 as const,
      };
    },
  });

  app.put('/v1/program', {
    config: {
      ...everyType,
      variants: {
        body: withVariantExample(UpdateProgramBodyByType, 'affiliate', {
          name: 'Acme partners',
          program_settings: {
            currency: 'EUR',
            cookie_lifetime: 30,
            commission: { type: 'percent', value: 20, duration: 'lifetime', duration_value: null },
          },
        }),
      },
    },
    schema: {
      operationId: 'updateProgram',
      description:
        'Changes the name, website and settings; omitted fields stay as they are and a given setting replaces its whole value. `program_settings` and `portal_settings` take only the keys of the program type (422 "prohibited" otherwise).',
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
      description: 'Answers the program the API key belongs to: a cheap way to check a key.',
      summary: 'Check an API key: the program it belongs to',
      tags: ['Program'],
      response: { 200: KeyCheckResponse, ...errorResponses },
    },
    handler: async (request) => ({ data: await getKeyCheck(programContext(request)), status: 1 as const }),
  });
}
