import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { createPartnerSample } from '../partners/partners.contract.ts';

/** An open flag of `program`: a customer of a new partner signs up with a disposable e-mail. */
export async function createFraudFlagSample(server: TestServer, program: TestProgram) {
  const partner = await createPartnerSample(server, program);
  const res = await server.request('POST', '/v1/customers', {
    token: program.token,
    body: {
      key: `flagged-${partner.key}`,
      email: `${partner.key}@mailinator.com`,
      partner: { key: partner.key },
    },
  });
  const flag = res.status === 201 && 'fraud' in res.body.data ? res.body.data.fraud?.flags[0] : undefined;
  if (flag === undefined) throw new Error(`fraud flag sample: ${res.text}`);
  return { id: flag };
}

const flag: RouteSample = { create: createFraudFlagSample };

export const contractSamples: RouteSamples = {
  'GET /v1/fraud/flags/:id': flag,
  'POST /v1/fraud/flags/:id/clear': flag,
  'POST /v1/fraud/flags/:id/confirm': { ...flag, body: {} },
};
