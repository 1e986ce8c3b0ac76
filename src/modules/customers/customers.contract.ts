import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { newKey } from '../../core/ids.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { createPartnerSample } from '../partners/partners.contract.ts';
import { createReferralCustomerSample } from './customers.referral.contract.ts';

/** A customer of an affiliate program (with its partner); answers the path segment naming it. */
export async function createAffiliateCustomerSample(server: TestServer, program: TestProgram) {
  const partner = await createPartnerSample(server, program);
  const key = newKey();
  const res = await server.request('POST', '/v1/customers', {
    token: program.token,
    body: { key, partner: { key: partner.key } },
  });
  if (res.status !== 201) throw new Error(`customer sample: ${res.text}`);
  return { id: key, key, partnerKey: partner.key };
}

/** How each program type's contract sample customer is made. */
const createCustomerByType: Partial<
  Record<ProgramType, (server: TestServer, program: TestProgram) => Promise<{ id: string }>>
> = {
  affiliate: createAffiliateCustomerSample,
  referral: createReferralCustomerSample,
};

const customer: RouteSample = {
  create: async (server, program) => {
    const make = createCustomerByType[program.type];
    if (!make) throw new Error(`no customer sample for ${program.type} programs`);
    return { id: (await make(server, program)).id };
  },
};

export const contractSamples: RouteSamples = {
  'GET /v1/customers/:id': customer,
  'PUT /v1/customers/:id': { ...customer, body: { update: { name: 'Renamed' } } },
  'DELETE /v1/customers/:id': customer,
  'GET /v1/customers/:id/transactions': customer,
};
