import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { createCommissionSample } from '../commissions/commissions.contract.ts';

/** A pending payout of `program` (a manual commission of a new partner, paid out); answers its id. */
export async function createPayoutSample(server: TestServer, program: TestProgram) {
  await createCommissionSample(server, program);
  const res = await server.request('POST', '/v1/payouts', { token: program.token, body: {} });
  if (res.status !== 201) throw new Error(`payout sample: ${res.text}`);
  return { id: res.body.data.id as string };
}

const payout: RouteSample = { create: createPayoutSample };

export const contractSamples: RouteSamples = {
  'GET /v1/payouts/:id': payout,
  'POST /v1/payouts/:id/mark-paid': payout,
  'POST /v1/payouts/:id/cancel': payout,
  'GET /v1/payouts/:id/export': payout,
};
