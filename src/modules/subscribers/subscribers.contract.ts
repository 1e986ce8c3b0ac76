import type { RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';

let made = 0;

async function createSubscriber(server: TestServer, program: TestProgram) {
  made += 1;
  const reply = await server.request('POST', '/v1/subscribers', {
    token: program.token,
    body: { email: `contract-${made}-${program.id}@example.com` },
  });
  if (reply.status !== 201) throw new Error(`subscriber create failed: ${reply.text}`);
  return { id: reply.body.data.id as string };
}

const withSubscriber = { create: createSubscriber };

export const contractSamples: RouteSamples = {
  'GET /v1/subscribers/:id': withSubscriber,
  'PUT /v1/subscribers/:id': { ...withSubscriber, body: { name: 'Renamed' } },
  'DELETE /v1/subscribers/:id': withSubscriber,
};
