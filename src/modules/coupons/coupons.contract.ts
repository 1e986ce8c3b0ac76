import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';

async function createCoupon(server: TestServer, program: TestProgram) {
  const reply = await server.request('POST', '/v1/coupons', {
    token: program.token,
    body: { coupon_discount_type: 'percent', coupon_discount_amount: 10, coupon_duration_type: 'once' },
  });
  if (reply.status !== 200) throw new Error(`coupon create failed: ${reply.text}`);
  return { uuid_code: reply.body.data.uuid_code as string };
}

const withCoupon = { create: createCoupon };

export const contractSamples: RouteSamples = {
  'GET /v1/coupons/:uuid_code': withCoupon,
  'PUT /v1/coupons/:uuid_code': { ...withCoupon, body: { name: 'renamed' } },
  'DELETE /v1/coupons/:uuid_code': withCoupon,
};
