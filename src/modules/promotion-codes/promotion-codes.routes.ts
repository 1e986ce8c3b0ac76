import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../core/errors.ts';
import { programTypes } from '../../core/program-types.ts';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, withExample } from '../../http/schemas.ts';
import {
  CreatePromotionCodeBody,
  DeletePromotionCodeByPathQuery,
  DeletePromotionCodeQuery,
  ListPromotionCodesQuery,
  PromotionCodeDeleted,
  PromotionCodeListResponse,
  PromotionCodeNotDeleted,
  PromotionCodeParams,
  PromotionCodeResponse,
  PromotionCodeWrittenResponse,
  UpdatePromotionCodeBody,
} from './promotion-codes.schemas.ts';
import {
  createPromotionCode,
  deletePromotionCode,
  getPromotionCode,
  listPromotionCodes,
  updatePromotionCode,
} from './promotion-codes.service.ts';

const policy = { auth: 'apiKey', programTypes } as const;
const tags = ['Promotion codes'];

/**
 * An unknown code on delete answers the spec's `data: {status: 0, message}` inside the error body
 * (contract §4.2), so clients reading either find the reason.
 */
async function deleteOrNotFound<T>(reply: FastifyReply, run: () => Promise<T>) {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'not_found') throw error;
    return reply.code(404).send({
      message: error.message,
      errors: {},
      data: { status: 0 as const, message: error.message },
      status: 0 as const,
    });
  }
}

const updatePromotionCodeBodyWithExample = withExample(UpdatePromotionCodeBody, {
  code: 'PATSPRING',
  redeem: true,
  transaction_key: 'order-1001',
});

/** `/v1/promotion-codes…` (and `POST /v1/promotion-code`) for every program type. */
export async function promotionCodesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  for (const [path, operationId, description] of [
    [
      '/v1/promotion-codes',
      'createPromotionCode',
      'Creates a promotion code of the coupon named by `coupon_uuid` (or `coupon_id`); codes are unique case-insensitively, and the same request again replays the stored code.',
    ],
    [
      '/v1/promotion-code',
      'createPromotionCodeSingular',
      'Creates a promotion code, as `POST /v1/promotion-codes` (the singular path of the older description).',
    ],
  ] as const) {
    app.post(path, {
      config: policy,
      schema: {
        operationId,
        description,
        summary: 'Create a promotion code of the coupon named by `coupon_uuid` (or `coupon_id`)',
        tags,
        body: withExample(CreatePromotionCodeBody, {
          coupon_uuid: 'spring-2026',
          code: 'PATSPRING',
          limit_to_specific_partner: true,
          coupon_specific_partners: [{ id: 'Xy12ab34Cd56' }],
        }),
        response: { 200: PromotionCodeWrittenResponse, ...errorResponses },
      },
      handler: async (request) => createPromotionCode(programContext(request), request.body),
    });
  }

  app.get('/v1/promotion-codes', {
    config: policy,
    schema: {
      operationId: 'listPromotionCodes',
      description:
        'Lists promotion codes, optionally of one coupon (`coupon_uuid`); an unknown coupon gives an empty page.',
      summary: 'List promotion codes (optionally of one coupon); never an error',
      tags,
      querystring: ListPromotionCodesQuery,
      response: { 200: PromotionCodeListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listPromotionCodes(programContext(request), request.query)),
  });

  app.get('/v1/promotion-codes/:code', {
    config: policy,
    schema: {
      operationId: 'getPromotionCode',
      description: 'Answers a promotion code, named case-insensitively, with its coupon.',
      summary: 'Get a promotion code (case-insensitively) with its coupon',
      tags,
      params: PromotionCodeParams,
      response: { 200: PromotionCodeResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getPromotionCode(programContext(request), request.params.code),
      status: 1 as const,
    }),
  });

  app.put('/v1/promotion-codes', {
    config: policy,
    schema: {
      operationId: 'updatePromotionCodeByBody',
      description:
        'Updates the code named by `code`, or redeems it (`redeem: true`, optionally for `transaction_key`); a code that cannot be redeemed is a 422 with the reason.',
      summary:
        'Update the code named by `code`, or redeem it (`redeem: true`, optional `transaction_key`): 422 with the reason when it cannot be redeemed',
      tags,
      body: updatePromotionCodeBodyWithExample,
      response: { 200: PromotionCodeWrittenResponse, ...errorResponses },
    },
    handler: async (request) => updatePromotionCode(programContext(request), undefined, request.body),
  });

  app.put('/v1/promotion-codes/:code', {
    config: policy,
    schema: {
      operationId: 'updatePromotionCode',
      description: 'Updates or redeems the promotion code named by the path, as `PUT /v1/promotion-codes`.',
      summary: 'Update or redeem a promotion code named by the path',
      tags,
      params: PromotionCodeParams,
      body: updatePromotionCodeBodyWithExample,
      response: { 200: PromotionCodeWrittenResponse, ...errorResponses },
    },
    handler: async (request) =>
      updatePromotionCode(programContext(request), request.params.code, request.body),
  });

  app.delete('/v1/promotion-codes', {
    config: policy,
    schema: {
      operationId: 'deletePromotionCodeByBody',
      description: 'Deletes the promotion code `code` of the coupon `coupon.uuid_code`, named in the body.',
      summary: 'Delete the promotion code `code` of the coupon `coupon.uuid_code`',
      tags,
      querystring: DeletePromotionCodeQuery,
      response: { 200: PromotionCodeDeleted, ...errorResponses, 404: PromotionCodeNotDeleted },
    },
    handler: async (request, reply) =>
      deleteOrNotFound(reply, () =>
        deletePromotionCode(programContext(request), request.query.code, request.query.coupon.uuid_code),
      ),
  });

  app.delete('/v1/promotion-codes/:code', {
    config: policy,
    schema: {
      operationId: 'deletePromotionCode',
      description:
        'Deletes the promotion code named by the path (and, when given, of the coupon `coupon.uuid_code`).',
      summary: 'Delete a promotion code named by the path (and, when given, its coupon `coupon.uuid_code`)',
      tags,
      params: PromotionCodeParams,
      querystring: DeletePromotionCodeByPathQuery,
      response: { 200: PromotionCodeDeleted, ...errorResponses, 404: PromotionCodeNotDeleted },
    },
    handler: async (request, reply) =>
      deleteOrNotFound(reply, () =>
        deletePromotionCode(programContext(request), request.params.code, request.query.coupon?.uuid_code),
      ),
  });
}
