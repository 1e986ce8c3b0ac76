import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import { createReferralCustomerSample } from './customers.referral.contract.ts';

export const contractSamples: RouteSamples = {
  'POST /v1/customers/:id/archive': { create: createReferralCustomerSample },
  'POST /v1/customers/:id/revoke-archive': { create: createReferralCustomerSample },
  'GET /v1/customers/:id/stats': { create: createReferralCustomerSample },
  'GET /v1/customers/:id/referrals': { create: createReferralCustomerSample },
};
