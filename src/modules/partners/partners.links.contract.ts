import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import { createPartnerSample } from './partners.contract.ts';

/** The default link of a fresh partner: its id is the partner's key. */
const link: RouteSample = {
  create: async (server, program) => ({ id: (await createPartnerSample(server, program)).key }),
};

export const contractSamples: RouteSamples = {
  'GET /v1/partner_referral_links/:id': link,
  'PUT /v1/partner_referral_links/:id': { ...link, body: { key: 'renamed-link' } },
  'DELETE /v1/partner_referral_links/:id': link,
  'GET /v1/partners/:id/referral_links': {
    create: async (server, program) => ({ id: (await createPartnerSample(server, program)).id }),
  },
};
