import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { createPartnerSample } from '../partners/partners.contract.ts';

let serial = 0;

/**
 * An open flag of `program`: a customer of a new partner (affiliate), one referred by a new
 * customer (refer-a-friend) or a subscriber referred by a new one signs up with a disposable e-mail.
 */
export async function createFraudFlagSample(server: TestServer, program: TestProgram) {
  const name = `flag${++serial}${Math.random().toString(36).slice(2, 8)}`;
  let owner: Record<string, unknown>;
  if (program.type === 'newsletter') {
    const referrer = await server.request('POST', '/v1/subscribers', {
      token: program.token,
      body: { id: `${name}-ref`, email: `${name}-ref@example.com` },
    });
    if (referrer.status !== 201) throw new Error(`fraud flag sample: ${referrer.text}`);
    const res = await server.request('POST', '/v1/subscribers', {
      token: program.token,
      body: { email: `${name}@mailinator.com`, referral: { id: `${name}-ref` } },
    });
    const flag = res.status === 201 ? res.body.data.fraud?.flags[0] : undefined;
    if (flag === undefined) throw new Error(`fraud flag sample: ${res.text}`);
    return { id: flag };
  }
  if (program.type === 'referral') {
    const referrer = await server.request('POST', '/v1/customers', {
      token: program.token,
      body: { id: `${name}-ref`, email: `${name}-ref@example.com` },
    });
    if (referrer.status !== 201) throw new Error(`fraud flag sample: ${referrer.text}`);
    owner = { referring_customer: { id: `${name}-ref` } };
  } else {
    const partner = await createPartnerSample(server, program);
    owner = { partner: { key: partner.key } };
  }
  const res = await server.request('POST', '/v1/customers', {
    token: program.token,
    body: { key: `flagged-${name}`, email: `${name}@mailinator.com`, ...owner },
  });
  const flag = res.status === 201 && 'fraud' in res.body.data ? res.body.data.fraud?.flags[0] : undefined;
  if (flag === undefined) throw new Error(`fraud flag sample: ${res.text}`);
  return { id: flag };
}

const flag: RouteSample = { create: createFraudFlagSample };

export const contractSamples: RouteSamples = {
  'GET /v1/fraud/flags/:id': flag,
  'POST /v1/fraud/flags/:id/clear': flag,
  'POST /v1/fraud/flags/:id/confirm': { ...flag, body: {} },
};
