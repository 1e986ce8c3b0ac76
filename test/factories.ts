import assert from 'node:assert/strict';
import { listenToEvents, type TestProgram, type TestServer } from './harness.ts';

/**
 * Records most tests start from, created through the API like a client would. Each asserts its
 * own creation, so a broken create fails where it happens rather than in a later assertion.
 */

/** A fresh affiliate program with a partner `pk` and its customer `ck`, ready for sales; it keeps its events. */
export async function affiliateProgramWithBuyer(
  server: TestServer,
): Promise<{ p: TestProgram<'affiliate'>; partnerId: string }> {
  const p = await server.newProgram('affiliate');
  await listenToEvents(server, p);
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'pk@example.com', key: 'pk' },
  });
  assert.equal(partner.status, 201, partner.text);
  const customer = await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key: 'ck', partner: { key: 'pk' } },
  });
  assert.equal(customer.status, 201, customer.text);
  return { p, partnerId: partner.body.data.id };
}
