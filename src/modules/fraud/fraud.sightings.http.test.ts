import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commissionsOf } from '../../../test/commission-factories.ts';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { locationOf, PageClient, signUpPartner } from '../../../test/portal-client.ts';
import type { ProgramContext } from '../../context.ts';
import { createWorker } from '../../worker.ts';
import { addressNamesOf, recordPortalVisit, SIGHTINGS_KEPT } from './fraud.sightings.service.ts';

const DAY = 86_400_000;
const clock = new ManualClock();
// The test server is reached from the loopback address: that is where the owners "are".
const OWNER_IP = '127.0.0.1';
const PORTAL_CLICK = 'PortalClick1';

const setRules = async (server: TestServer, p: TestProgram, settings: Record<string, unknown>) => {
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: settings },
  });
  assert.equal(put.status, 200, put.text);
};

const flagOf = async (server: TestServer, p: TestProgram, id: string) => {
  const res = await server.request('GET', `/v1/fraud/flags/${id}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
};

const sightingsOf = (server: TestServer, p: TestProgram) =>
  server.deps.database.db
    .selectFrom('fraud_portal_sightings')
    .select(['kind', 'value', 'owner_kind'])
    .where('program_id', '=', p.id)
    .orderBy('kind')
    .execute();

/** An affiliate program whose partner `jane` signed up and used the portal, with a click cookie. */
async function affiliateWithPortalPartner(server: () => TestServer) {
  const p = await server().newProgram('affiliate');
  const { client } = await signUpPartner(server, `/p/${p.publicId}`, 'jane@example.com');
  client.setCookie('vouch_click', PORTAL_CLICK);
  assert.equal((await client.get(`/p/${p.publicId}/dashboard`)).status, 200);
  const partners = await server().request('GET', '/v1/partners?limit=1', { token: p.token });
  const jane = String(itemAt(partners.body.data).id);
  const other = await server().request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'bob@example.com', name: 'Bob' },
  });
  assert.equal(other.status, 201, other.text);
  return { p, jane, bob: String(other.body.data.id) };
}

describeEachDatabase(
  'fraud rule same_address: the owner seen in its portal',
  (server) => {
    const signup = (p: TestProgram<'affiliate'>, key: string, partner: string, context: object) =>
      server().request('POST', '/v1/customers', {
        token: p.token,
        body: { key, partner: { id: partner }, context },
      });
    const sale = (p: TestProgram<'affiliate'>, key: string, customer: string, context: object) =>
      server().request('POST', '/v1/transactions', {
        token: p.token,
        body: { key, amount: 100, action: 'sale', customer: { key: customer }, context },
      });

    test('flag: a signup or a sale from the partner’s portal address or click is credited and held', async () => {
      const { p, jane, bob } = await affiliateWithPortalPartner(server);
      // What is kept: a keyed name of the address (never the address) and the click id.
      const kept = await sightingsOf(server(), p);
      assert.deepEqual(
        kept.map((s) => [s.kind, s.owner_kind]),
        [
          ['address', 'partner'],
          ['click', 'partner'],
        ],
      );
      const address = kept[0]?.value ?? '';
      assert.match(address, /^[A-Za-z0-9_-]{43}$/);

      // An IPv4 address mapped into IPv6 is the same address.
      const fromHome = await signup(p, 'c-home', jane, { ip: `::ffff:${OWNER_IP}` });
      assert.equal(fromHome.status, 201, fromHome.text);
      assert.equal(fromHome.body.data.partner, jane, 'a flag credits');
      assert.deepEqual(fromHome.body.data.fraud?.rules, [{ rule: 'same_address', action: 'flag' }]);
      const flag = await flagOf(server(), p, itemAt(fromHome.body.data.fraud?.flags ?? []));
      assert.deepEqual(flag.evidence, { seen_in_portal: 'address', address });
      assert.deepEqual(flag.owner, { type: 'partner', id: jane });

      const fromBrowser = await signup(p, 'c-browser', jane, { click_id: PORTAL_CLICK });
      const byClick = await flagOf(server(), p, itemAt(fromBrowser.body.data.fraud?.flags ?? []));
      assert.deepEqual(byClick.evidence, { seen_in_portal: 'click', click_id: PORTAL_CLICK });

      // Another address, or another partner the address never signed in as: nothing.
      assert.equal((await signup(p, 'c-away', jane, { ip: '203.0.113.7' })).body.data.fraud, undefined);
      const bobs = await signup(p, 'c-bob', bob, { ip: OWNER_IP });
      assert.equal(bobs.status, 201, bobs.text);
      assert.equal(bobs.body.data.fraud, undefined);

      // A sale of a clean buyer from the partner's address: held under a flag on the transaction.
      const held = await sale(p, 's-home', 'c-away', { ip: OWNER_IP });
      assert.equal(held.status, 200, held.text);
      assert.deepEqual(held.body.data.fraud?.rules, [{ rule: 'same_address', action: 'flag' }]);
      const saleFlag = await flagOf(server(), p, itemAt(held.body.data.fraud?.flags ?? []));
      const commission = itemAt(await commissionsOf(server(), p, '&transaction=s-home'));
      assert.equal(commission.status, 'pending');
      assert.equal(commission.fraud_flag, saleFlag.id);
      assert.deepEqual(saleFlag.subject, { type: 'transaction', id: 's-home' });
      assert.deepEqual(saleFlag.evidence, { seen_in_portal: 'address', address });
      // Bob's sale from the same address, and a sale from elsewhere, are not his concern.
      assert.equal((await sale(p, 's-bob', 'c-bob', { ip: OWNER_IP })).body.data.fraud, undefined);
      assert.equal((await sale(p, 's-away', 'c-away', { ip: '203.0.113.7' })).body.data.fraud, undefined);
    });

    test('block: the signup is stored without its partner, the sale earns nothing; old sightings count no more', async () => {
      const { p, jane } = await affiliateWithPortalPartner(server);
      await setRules(server(), p, { fraud_rules: { same_address: 'block' } });
      const blocked = await signup(p, 'c-blocked', jane, { ip: OWNER_IP });
      assert.equal(blocked.status, 201, blocked.text);
      assert.equal(blocked.body.data.partner, null);
      assert.deepEqual(blocked.body.data.fraud, {
        blocked: true,
        rules: [{ rule: 'same_address', action: 'block' }],
        flags: [],
      });
      const clean = await signup(p, 'c-clean', jane, { ip: '203.0.113.8' });
      assert.equal(clean.body.data.partner, jane);
      const sold = await sale(p, 's-blocked', 'c-clean', { click_id: PORTAL_CLICK });
      assert.equal(sold.status, 200, sold.text);
      assert.deepEqual(sold.body.data.rewards, []);
      assert.equal(sold.body.data.fraud?.blocked, true);
      // Off: the same facts fire nothing.
      await setRules(server(), p, { fraud_rules: { same_address: 'off' } });
      const off = await signup(p, 'c-off', jane, { ip: OWNER_IP });
      assert.equal(off.body.data.partner, jane);
      assert.equal(off.body.data.fraud, undefined);

      // 90 days on, the sightings no longer count, and the worker's sweep deletes them.
      await setRules(server(), p, { fraud_rules: { same_address: 'block' } });
      clock.advance(91 * DAY);
      const later = await signup(p, 'c-later', jane, { ip: OWNER_IP });
      assert.equal(later.body.data.partner, jane);
      assert.equal(later.body.data.fraud, undefined);
      const worker = createWorker(server().deps);
      try {
        assert.ok((await worker.runOnce()).purged >= 2);
      } finally {
        worker.close();
      }
      assert.deepEqual(await sightingsOf(server(), p), []);
    });

    test('refer-a-friend: a friend from the referrer’s customer-portal address is flagged, or blocked', async () => {
      const p = await server().newProgram('referral');
      const ref = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { id: 'ref', key: 'ref-key', email: 'ref@example.com' },
      });
      assert.equal(ref.status, 201, ref.text);
      // The referrer signs in with an e-mailed link and opens its page.
      const client = new PageClient(server);
      await client.submit(`/c/${p.publicId}/sign-in`, { email: 'ref@example.com' });
      const mail = await server()
        .deps.database.db.selectFrom('email_outbox')
        .select('text_body')
        .where('program_id', '=', p.id)
        .where('recipient', '=', 'ref@example.com')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const link = new URL(/https?:\/\/\S+\/link\/[A-Za-z0-9_-]{43}/.exec(mail.text_body)?.[0] ?? '')
        .pathname;
      await client.get(link);
      const used = await client.post(link);
      assert.equal(locationOf(used), `/c/${p.publicId}/home`);
      assert.equal((await client.get(`/c/${p.publicId}/home`)).status, 200);
      assert.deepEqual(
        (await sightingsOf(server(), p)).map((s) => [s.kind, s.owner_kind]),
        [['address', 'customer']],
      );

      const friend = (id: string) =>
        server().request('POST', '/v1/customers', {
          token: p.token,
          body: {
            id,
            email: `${id}@example.com`,
            referring_customer: { id: 'ref' },
            context: { ip: OWNER_IP },
          },
        });
      const flagged = await friend('friend1');
      assert.equal(flagged.status, 201, flagged.text);
      assert.notEqual(flagged.body.data.referring_customer, null);
      assert.deepEqual(flagged.body.data.fraud?.rules, [{ rule: 'same_address', action: 'flag' }]);
      const flag = await flagOf(server(), p, itemAt(flagged.body.data.fraud?.flags ?? []));
      assert.deepEqual(flag.owner, { type: 'referrer', id: 'ref-key' });
      assert.equal(flag.evidence.seen_in_portal, 'address');
      await setRules(server(), p, { fraud_rules: { same_address: 'block' } });
      const blocked = await friend('friend2');
      assert.equal(blocked.status, 201, blocked.text);
      assert.equal(blocked.body.data.referring_customer, null);
      assert.equal(blocked.body.data.fraud?.blocked, true);
    });

    test('bounded: an owner keeps its 20 most recent sightings; a repeat within the hour writes nothing', async () => {
      const p = await server().newProgram('affiliate');
      const ctx: ProgramContext = {
        ...server().deps,
        program: {
          id: p.id,
          publicId: p.publicId,
          type: 'affiliate',
          keyId: 0,
          keyPublicId: '',
          scope: 'full',
        },
      };
      const owner = { kind: 'partner' as const, id: 1 };
      for (let i = 1; i <= 25; i++) {
        await recordPortalVisit(ctx, owner, { ip: `198.51.100.${i}`, clickId: undefined });
        clock.advance(60_000);
      }
      const kept = await sightingsOf(server(), p);
      assert.equal(kept.length, SIGHTINGS_KEPT);
      const names = (ip: string) => addressNamesOf(server().deps, ip);
      const values = new Set(kept.map((row) => row.value));
      assert.ok(!values.has(names('198.51.100.1')[0] ?? ''), 'the oldest went');
      assert.ok(values.has(names('198.51.100.25')[0] ?? ''), 'the newest stayed');
      const lastSeen = () =>
        server()
          .deps.database.db.selectFrom('fraud_portal_sightings')
          .select('last_seen_at')
          .where('program_id', '=', p.id)
          .where('value', '=', names('198.51.100.25')[0] ?? '')
          .executeTakeFirstOrThrow();
      const before = (await lastSeen()).last_seen_at;
      await recordPortalVisit(ctx, owner, { ip: '198.51.100.25', clickId: undefined });
      assert.equal((await lastSeen()).last_seen_at, before, 'within the hour: not written');
      clock.advance(61 * 60_000);
      await recordPortalVisit(ctx, owner, { ip: '198.51.100.25', clickId: 'not a click id!' });
      assert.notEqual((await lastSeen()).last_seen_at, before, 'an hour on: refreshed');
      assert.equal(
        (await sightingsOf(server(), p)).length,
        SIGHTINGS_KEPT,
        'a malformed click cookie is not kept',
      );
    });
  },
  { clock },
);
