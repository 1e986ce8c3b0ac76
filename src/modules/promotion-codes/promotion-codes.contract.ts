import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';

async function createCode(server: TestServer, program: TestProgram) {
  const coupon = await server.request('POST', '/v1/coupons', {
    token: program.token,
    body: { coupon_discount_type: 'percent', coupon_discount_amount: 10, coupon_duration_type: 'once' },
  });
  if (coupon.status !== 200) throw new Error(`coupon create failed: ${coupon.text}`);
  const code = await server.request('POST', '/v1/promotion-codes', {
    token: program.token,
    body: { coupon_uuid: coupon.body.data.uuid_code },
  });
  if (code.status !== 200) throw new Error(`promotion code create failed: ${code.text}`);
  return { code: code.body.data.code as string };
}

const withCode = { create: createCode };

export const contractSamples: RouteSamples = {
  'GET /v1/promotion-codes/:code': withCode,
  'PUT /v1/promotion-codes/:code': { ...withCode, body: { metadata: { note: 'x' } } },
  'DELETE /v1/promotion-codes/:code': withCode,
};
