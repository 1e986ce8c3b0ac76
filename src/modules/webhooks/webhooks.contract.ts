import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import type { ProgramType } from '../../core/program-types.ts';

const firstEvent: Record<ProgramType, string> = {
  affiliate: 'partner.created',
  referral: 'customer.created',
  newsletter: 'subscriber.created',
};

async function createWebhook(server: TestServer, program: TestProgram) {
  const reply = await server.request('POST', '/v1/webhooks', {
    token: program.token,
    // Port 9 (discard) is closed on loopback: a test send fails at once.
    body: { name: 'contract', url: 'http://127.0.0.1:9/hook', events: [firstEvent[program.type]] },
  });
  if (reply.status !== 200) throw new Error(`webhook create failed: ${reply.text}`);
  return reply.body.data.key as string;
}

const withWebhook = {
  create: async (server: TestServer, program: TestProgram) => ({ key: await createWebhook(server, program) }),
};

export const contractSamples: RouteSamples = {
  'GET /v1/webhooks/:key': withWebhook,
  'PUT /v1/webhooks/:key': { ...withWebhook, body: { name: 'renamed' } },
  'DELETE /v1/webhooks/:key': withWebhook,
  'GET /v1/webhooks/:key/deliveries': withWebhook,
  'POST /v1/webhooks/:key/test': withWebhook,
  'POST /v1/webhooks/:key/deliveries/:id/retry': {
    create: async (server, program) => {
      const key = await createWebhook(server, program);
      const sent = await server.request('POST', `/v1/webhooks/${key}/test`, { token: program.token });
      if (sent.status !== 200) throw new Error(`webhook test failed: ${sent.text}`);
      return { key, id: sent.body.data.delivery_id as string };
    },
  },
};
