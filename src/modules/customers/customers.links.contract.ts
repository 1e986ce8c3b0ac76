import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import { createReferralCustomerSample } from './customers.referral.contract.ts';

/** The default link of a fresh customer has the customer's key as its id. */
const createLink: NonNullable<RouteSamples[string]['create']> = async (server, program) => {
  const { key } = await createReferralCustomerSample(server, program);
  return { id: key };
};

export const contractSamples: RouteSamples = {
  'GET /v1/customer_referral_links/:id': { create: createLink },
  'PUT /v1/customer_referral_links/:id': { create: createLink, body: { key: 'renamed-link' } },
  'DELETE /v1/customer_referral_links/:id': { create: createLink },
  'GET /v1/customers/:id/referral_links': { create: createReferralCustomerSample },
};
