import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, withExample } from '../../http/schemas.ts';
import {
  CreatePayoutBody,
  ExportPayoutQuery,
  ListPayoutsQuery,
  PayoutIdParams,
  PayoutListResponse,
  PayoutResponse,
} from './payouts.schemas.ts';
import {
  cancelPayout,
  createPayout,
  exportPayout,
  getPayout,
  listPayouts,
  markPayoutPaid,
} from './payouts.service.ts';

const policy = { auth: 'apiKey', programTypes: ['affiliate'] } as const;
const tags = ['Payouts'];

/** `/v1/payouts…` of affiliate programs (a Vouch extension of `/v1`). */
export async function payoutsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/payouts', {
    config: policy,
    schema: {
      operationId: 'createPayout',
      description:
        'Gathers the approved, unpaid commissions (net of clawbacks, past `payout_terms_days`) of every partner that reaches the payout minimum of its currency into one pending payout.',
      summary:
        'Gather approved, unpaid commissions (net of clawbacks) of every partner reaching the payout minimum into a payout',
      tags,
      body: withExample(CreatePayoutBody, { currency: 'USD' }),
      response: { 201: PayoutResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createPayout(programContext(request), request.body ?? {});
      return reply.code(201).send({ data, status: 1 });
    },
  });

  app.get('/v1/payouts', {
    config: policy,
    schema: {
      operationId: 'listPayouts',
      description: 'Lists payouts, newest first, without their items.',
      summary: 'List payouts, newest first (entries without their items)',
      tags,
      querystring: ListPayoutsQuery,
      response: { 200: PayoutListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listPayouts(programContext(request), request.query)),
  });

  app.get('/v1/payouts/:id', {
    config: policy,
    schema: {
      operationId: 'getPayout',
      description: 'Answers a payout with its items, one per partner and currency.',
      summary: 'Get a payout with its items (one per partner)',
      tags,
      params: PayoutIdParams,
      response: { 200: PayoutResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getPayout(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.post('/v1/payouts/:id/mark-paid', {
    config: policy,
    schema: {
      operationId: 'markPayoutPaid',
      description: 'Marks a pending payout paid: its commissions become `paid` and each partner is e-mailed.',
      summary: 'Mark a pending payout paid: its commissions become paid and each partner gets an e-mail',
      tags,
      params: PayoutIdParams,
      response: { 200: PayoutResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await markPayoutPaid(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.post('/v1/payouts/:id/cancel', {
    config: policy,
    schema: {
      operationId: 'cancelPayout',
      description:
        'Cancels a pending payout: its commissions return to `approved` and can be paid out again.',
      summary: 'Cancel a pending payout: its commissions go back to approved',
      tags,
      params: PayoutIdParams,
      response: { 200: PayoutResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await cancelPayout(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.get('/v1/payouts/:id/export', {
    config: policy,
    schema: {
      operationId: 'exportPayout',
      description:
        'Streams a payout as a CSV payment file: `paypal` (PayPal Payouts), `wise` (Wise batch transfer) or `full` (every column). Errors are JSON as everywhere.',
      summary:
        'Export a payout as a payment file (CSV): PayPal Payouts, Wise batch transfer, or every column',
      tags,
      params: PayoutIdParams,
      querystring: ExportPayoutQuery,
      response: {
        // A stream is sent as it is (never serialized); the schema documents the file.
        200: Type.Unsafe<Readable>({
          description: 'The CSV file, streamed',
          content: { 'text/csv': { schema: { type: 'string' } } },
        }),
        ...errorResponses,
      },
    },
    handler: async (request, reply) => {
      const file = await exportPayout(programContext(request), request.params.id, request.query.format);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .send(file.stream);
    },
  });
}
