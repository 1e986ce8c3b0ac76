import type { RouteSample, RouteSamples } from '../../../test/contracts/route-samples.ts';
import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { newKey } from '../../core/ids.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { createReferralCustomerSample } from '../customers/customers.referral.contract.ts';
import { createPartnerSample } from '../partners/partners.contract.ts';

/** The buyer part of a create body that makes a new customer, per program type. */
const buyerByType: Partial<
  Record<ProgramType, (server: TestServer, program: TestProgram) => Promise<Record<string, unknown>>>
> = {
  affiliate: async (server, program) => ({
    key: newKey(),
    partner: { key: (await createPartnerSample(server, program)).key },
  }),
  referral: async (server, program) => ({
    key: newKey(),
    referring_customer: { id: (await createReferralCustomerSample(server, program)).id },
  }),
};

/** A transaction of `program`, with a new buyer; answers its key. */
export async function createTransactionSample(server: TestServer, program: TestProgram) {
  const buyer = buyerByType[program.type];
  if (!buyer) throw new Error(`no transaction sample for ${program.type} programs`);
  const key = newKey();
  const res = await server.request('POST', '/v1/transactions', {
    token: program.token,
    body: {
      key,
      amount: 100,
      action: 'sale',
      customer: await buyer(server, program),
      options: { create_customer: true },
    },
  });
  if (res.status !== 200) throw new Error(`transaction sample: ${res.text}`);
  return { key };
}

const transaction: RouteSample = { create: createTransactionSample };

export const contractSamples: RouteSamples = {
  'GET /v1/transactions/:key': transaction,
  'POST /v1/transactions/:key/archive': transaction,
  'POST /v1/transactions/:key/revoke-archive': transaction,
  'POST /v1/transactions/:key/refund': transaction,
  'DELETE /v1/transactions/:key': transaction,
};
