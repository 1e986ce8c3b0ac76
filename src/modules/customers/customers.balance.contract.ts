import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import { createReferralCustomerSample } from './customers.referral.contract.ts';

export const contractSamples: RouteSamples = {
  'GET /v1/customers/:id/balance': { create: createReferralCustomerSample },
  'POST /v1/customers/:id/balance/credit': {
    create: createReferralCustomerSample,
    body: { amount: 1, amount_units: 'USD', is_currency: true },
  },
};
