import { connect, deliverOk, invoicePaid, unique } from '../../../test/billing-events.ts';
import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';

const connected = {
  create: async (server: TestServer, program: TestProgram) => {
    await connect(server, program, 'stripe');
    return { provider: 'stripe' };
  },
};

export const contractSamples: RouteSamples = {
  'GET /v1/integrations/:provider': connected,
  'PUT /v1/integrations/:provider': { ...connected, body: { active: true } },
  'DELETE /v1/integrations/:provider': connected,
  'POST /v1/integrations/events/:id/retry': {
    create: async (server, program) => {
      await connect(server, program, 'stripe');
      const received = await deliverOk(
        server,
        program,
        'stripe',
        invoicePaid(`cus_${unique()}`, 100),
        'unattributed',
      );
      return { id: String(received.id) };
    },
  },
};
