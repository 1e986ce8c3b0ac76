import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { newKey } from '../../core/ids.ts';

/** A fresh partner of `program`, made over HTTP; answers its id and its default link key. */
export async function createPartnerSample(server: TestServer, program: TestProgram) {
  const key = newKey();
  const res = await server.request('POST', '/v1/partners', {
    token: program.token,
    body: { email: `${key.toLowerCase()}@example.com`, key },
  });
  if (res.status !== 201) throw new Error(`partner sample: ${res.text}`);
  return { id: res.body.data.id as string, key };
}

const partner: RouteSample = {
  create: async (server, program) => ({ id: (await createPartnerSample(server, program)).id }),
};

export const contractSamples: RouteSamples = {
  'GET /v1/partners/:id': partner,
  'PUT /v1/partners/:id': partner,
  'DELETE /v1/partners/:id': partner,
  'POST /v1/partners/:id/archive': partner,
  'POST /v1/partners/:id/revoke-archive': partner,
  'POST /v1/partners/:id/approve': partner,
  'POST /v1/partners/:id/reject': partner,
};
