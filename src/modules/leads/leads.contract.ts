import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import { createPartnerSample } from '../partners/partners.contract.ts';

/** A lead of a fresh partner of the program, made over HTTP. */
const lead: RouteSample = {
  create: async (server, program) => {
    const partner = await createPartnerSample(server, program);
    const res = await server.request('POST', '/v1/leads', {
      token: program.token,
      body: { name: 'Sample Lead', email: 'lead@example.com', partner: { id: partner.id } },
    });
    if (res.status !== 201) throw new Error(`lead sample: ${res.text}`);
    return { id: String(res.body.data.id) };
  },
};

export const contractSamples: RouteSamples = {
  'GET /v1/leads/:id': lead,
  'DELETE /v1/leads/:id': lead,
};
