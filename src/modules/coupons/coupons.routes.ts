import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programTypes } from '../../core/program-types.ts';
import { programContext } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { errorResponses, withExample } from '../../http/schemas.ts';
import { couponCodes } from '../promotion-codes/promotion-codes.service.ts';
import {
  CouponDeleted,
  CouponListResponse,
  CouponParams,
  CouponResponse,
  CouponWrittenResponse,
  CreateCouponBody,
  ListCouponsQuery,
  UpdateCouponBody,
} from './coupons.schemas.ts';
import { createCoupon, deleteCoupon, getCoupon, listCoupons, updateCoupon } from './coupons.service.ts';

const policy = { auth: 'apiKey', programTypes } as const;
const tags = ['Coupons'];

const updateCouponBodyWithExample = withExample(UpdateCouponBody, {
  uuid_code: 'spring-2026',
  update: { name: 'Spring sale (extended)', active: true },
});

/**
 * `/v1/coupons…` for every program type. A coupon's responses list its promotion codes, which
 * the promotion-codes module provides (`couponCodes`): codes depend on coupons, not the reverse.
 */
export async function couponsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/coupons', {
    config: policy,
    schema: {
      operationId: 'createCoupon',
      description:
        'Creates a coupon (a discount a partner or customer can be given) and, in `promotion_codes`, codes that redeem it. The same `uuid_code` again replays the stored coupon.',
      summary: 'Create a coupon (and, in `promotion_codes`, codes that redeem it)',
      tags,
      body: withExample(CreateCouponBody, {
        name: 'Spring sale',
        uuid_code: 'spring-2026',
        coupon_discount_type: 'percent',
        coupon_discount_amount: 15,
        coupon_duration_type: 'once',
        promotion_codes: [{ code: 'SPRING15' }],
      }),
      response: { 200: CouponWrittenResponse, ...errorResponses },
    },
    handler: async (request) => createCoupon(programContext(request), request.body, couponCodes),
  });

  app.get('/v1/coupons', {
    config: policy,
    schema: {
      operationId: 'listCoupons',
      description:
        'Lists coupons, each with its promotion codes as `{data: [...]}`; filters that match nothing give an empty page, never an error.',
      summary: 'List coupons, each with its promotion codes as `{data: [...]}`; never an error',
      tags,
      querystring: ListCouponsQuery,
      response: { 200: CouponListResponse, ...errorResponses },
    },
    handler: async (request) =>
      paginated(
        request,
        request.query,
        await listCoupons(programContext(request), request.query, couponCodes),
      ),
  });

  app.get('/v1/coupons/:uuid_code', {
    config: policy,
    schema: {
      operationId: 'getCoupon',
      description: 'Answers a coupon with its promotion codes.',
      summary: 'Get a coupon with its promotion codes',
      tags,
      params: CouponParams,
      response: { 200: CouponResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getCoupon(programContext(request), request.params.uuid_code, couponCodes),
      status: 1 as const,
    }),
  });

  app.put('/v1/coupons', {
    config: policy,
    schema: {
      operationId: 'updateCouponByBody',
      description: 'Updates the coupon named by `uuid_code` (or the older integer `id`) in the body.',
      summary: 'Update a coupon named by `uuid_code` (or the older integer `id`) in the body',
      tags,
      body: updateCouponBodyWithExample,
      response: { 200: CouponWrittenResponse, ...errorResponses },
    },
    handler: async (request) => updateCoupon(programContext(request), undefined, request.body, couponCodes),
  });

  app.put('/v1/coupons/:uuid_code', {
    config: policy,
    schema: {
      operationId: 'updateCoupon',
      description:
        'Updates a coupon; `metadata` is merged key by key, and `active` takes effect at once for its codes.',
      summary: 'Update a coupon; `metadata` is merged, `active` counts at once',
      tags,
      params: CouponParams,
      body: updateCouponBodyWithExample,
      response: { 200: CouponWrittenResponse, ...errorResponses },
    },
    handler: async (request) =>
      updateCoupon(programContext(request), request.params.uuid_code, request.body, couponCodes),
  });

  app.delete('/v1/coupons/:uuid_code', {
    config: policy,
    schema: {
      operationId: 'deleteCoupon',
      description:
        'Deletes a coupon: its codes can no longer be redeemed. An unknown coupon is a 404 `Coupon not found`.',
      summary: 'Delete a coupon: its codes can no longer be redeemed. Unknown: 404 `Coupon not found`',
      tags,
      params: CouponParams,
      response: { 200: CouponDeleted, ...errorResponses },
    },
    handler: async (request) => deleteCoupon(programContext(request), request.params.uuid_code),
  });
}
