import assert from 'node:assert/strict';
import { test } from 'node:test';
import { affiliateProgramWithBuyer } from '../../../test/factories.ts';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import type { ProgramContext } from '../../context.ts';
import { SecretBox } from '../../core/secret-box.ts';
import { recordPortalVisit } from './fraud.sightings.service.ts';

// What a sale's rules read before it is written (fraud.sale-evidence.ts): the settings, the
// click and the portal sightings, in one statement on PostgreSQL. An address is looked up by its
// name under every server key, so a sighting named before a key was replaced still counts.
const key = (byte: string) => byte.repeat(32);
const OLD_KEY = key('0a');
const OWNER_IP = '198.51.100.20';
const PORTAL_CLICK = 'PortalClick9';

/** A program whose partner was seen in its portal, named under the old key only. */
async function partnerSeenBeforeRotation(server: TestServer) {
  const { p } = await affiliateProgramWithBuyer(server);
  const { id } = await server.deps.database.db
    .selectFrom('partners')
    .select('id')
    .where('program_id', '=', p.id)
    .where('email', '=', 'pk@example.com')
    .executeTakeFirstOrThrow();
  const before: ProgramContext = {
    ...server.deps,
    secrets: new SecretBox([Buffer.from(OLD_KEY, 'hex')]),
    program: { id: p.id, publicId: p.publicId, type: 'affiliate', keyId: 0, keyPublicId: '', scope: 'full' },
  };
  await recordPortalVisit(
    before,
    { kind: 'partner', id: Number(id) },
    { ip: OWNER_IP, clickId: PORTAL_CLICK },
  );
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { fraud_rules: { same_address: 'flag' } } },
  });
  assert.equal(put.status, 200, put.text);
  return p;
}

const sale = (server: TestServer, p: TestProgram<'affiliate'>, saleKey: string, context: object) =>
  server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { key: saleKey, amount: 100, action: 'sale', customer: { key: 'ck' }, context },
  });

for (const [keys, how] of [
  [[key('0b'), OLD_KEY], 'two keys: both names in the one lookup'],
  [[key('0b'), key('0c'), OLD_KEY], 'three keys: more names than the lookup has room for'],
] as const)
  describeEachDatabase(
    `a sale's fraud evidence, ${how}`,
    (server) => {
      test('a sale from an address or click the partner used in its portal is held; others are not', async () => {
        const p = await partnerSeenBeforeRotation(server());
        const byAddress = await sale(server(), p, 's-address', { ip: OWNER_IP });
        assert.equal(byAddress.status, 200, byAddress.text);
        assert.deepEqual(byAddress.body.data.fraud?.rules, [{ rule: 'same_address', action: 'flag' }]);
        const byClick = await sale(server(), p, 's-click', { ip: '203.0.113.5', click_id: PORTAL_CLICK });
        assert.deepEqual(byClick.body.data.fraud?.rules, [{ rule: 'same_address', action: 'flag' }]);
        const elsewhere = await sale(server(), p, 's-away', { ip: '203.0.113.5', click_id: 'OtherClick1' });
        assert.equal(elsewhere.status, 200, elsewhere.text);
        assert.equal(elsewhere.body.data.fraud, undefined);
      });

      test('with the rule off, the same sale is not held', async () => {
        const p = await partnerSeenBeforeRotation(server());
        const put = await server().request('PUT', '/v1/program', {
          token: p.token,
          body: { program_settings: { fraud_rules: { same_address: 'off' } } },
        });
        assert.equal(put.status, 200, put.text);
        const quiet = await sale(server(), p, 's-off', { ip: OWNER_IP, click_id: PORTAL_CLICK });
        assert.equal(quiet.status, 200, quiet.text);
        assert.equal(quiet.body.data.fraud, undefined);
      });
    },
    { env: { SECRET_KEY: keys.join(',') } },
  );
