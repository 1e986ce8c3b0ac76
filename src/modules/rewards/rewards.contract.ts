import type { RouteSamples } from '../../../test/contracts/route-samples.ts';

export const contractSamples: RouteSamples = {
  'GET /v1/rewards/:id': {
    create: async (server, program) => {
      const reply = await server.request('POST', '/v1/rewards', {
        token: program.token,
        body: { name: 'Contract', subscribers_count: 1 },
      });
      if (reply.status !== 201) throw new Error(`reward create failed: ${reply.text}`);
      return { id: String(reply.body.data.id) };
    },
  },
};
