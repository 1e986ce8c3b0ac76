import type { TestProgram, TestServer } from '../../../test/harness.ts';
import { keylessContext } from '../../context.ts';
import { newKey } from '../../core/ids.ts';
import { insertReferralCustomer } from './customers.referral.ts';

/**
 * A refer-a-friend customer for the contract suite, made through the service (not HTTP) so that
 * it works whichever customer routes are registered. Answers the path parameters that name it.
 */
export async function createReferralCustomerSample(server: TestServer, program: TestProgram) {
  const ctx = keylessContext(server.deps, { id: program.id, public_id: program.publicId, type: 'referral' });
  const row = await server.deps.database.db
    .transaction()
    .execute((trx) => insertReferralCustomer(trx, ctx, { email: `${newKey().toLowerCase()}@example.com` }));
  return { id: row.public_id, key: row.key };
}
