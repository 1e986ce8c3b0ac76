import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { createPartnerSample } from '../partners/partners.contract.ts';

/** A manual commission of a new partner of `program`; answers its id. */
export async function createCommissionSample(server: TestServer, program: TestProgram) {
  const partner = await createPartnerSample(server, program);
  const res = await server.request('POST', '/v1/commissions', {
    token: program.token,
    body: { partner: partner.id, amount: 10, description: 'Contract sample' },
  });
  if (res.status !== 201) throw new Error(`commission sample: ${res.text}`);
  return { id: String(res.body.data.id) };
}

const commission: RouteSample = { create: createCommissionSample };

export const contractSamples: RouteSamples = {
  'GET /v1/commissions/:id': commission,
};
