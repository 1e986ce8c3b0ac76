import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

/** An affiliate program with one partner (`jane@example.com`, key `jane`) and the given settings. */
async function program(server: TestServer, settings: Record<string, unknown> = {}) {
  const p = await server.newProgram('affiliate');
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: settings },
  });
  assert.equal(put.status, 200, put.text);
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'jane@example.com', key: 'jane' },
  });
  assert.equal(partner.status, 201, partner.text);
  await listenToEvents(server, p);
  return { p, partnerId: partner.body.data.id };
}

const signup = (server: TestServer, p: TestProgram<'affiliate'>, body: Record<string, unknown>) =>
  server.request('POST', '/v1/customers', { token: p.token, body: { partner: { key: 'jane' }, ...body } });

const signups = async (server: TestServer, p: TestProgram<'affiliate'>, partnerId: string) => {
  const res = await server.request('GET', `/v1/partners/${partnerId}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.referrals.signups;
};

describeEachDatabase('fraud rules on affiliate signups', (server) => {
  test('disposable_email flag (the default): credited, a flag opened and announced', async () => {
    const { p, partnerId } = await program(server());
    const res = await signup(server(), p, { key: 'c1', email: 'buyer@mailinator.com' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.partner, partnerId);
    const fraud = res.body.data.fraud;
    assert.ok(fraud);
    assert.equal(fraud.blocked, false);
    assert.deepEqual(fraud.rules, [{ rule: 'disposable_email', action: 'flag' }]);
    assert.equal(fraud.flags.length, 1);
    assert.equal(await signups(server(), p, partnerId), 1);
    const flagged = (await recordedEvents(server(), p)).filter((e) => e.event === 'fraud.flagged');
    assert.equal(flagged.length, 1);
    assert.equal(flagged[0]?.payload.id, fraud.flags[0]);
    assert.equal(flagged[0]?.payload.rule, 'disposable_email');
    assert.deepEqual(flagged[0]?.payload.evidence, { domain: 'mailinator.com' });
    // A fetch shows the customer without the create's outcome.
    const fetched = await server().request('GET', '/v1/customers/c1', { token: p.token });
    assert.equal('fraud' in fetched.body.data, false);
  });

  test('disposable_email block: stored without a partner, counted for no one', async () => {
    const { p, partnerId } = await program(server(), { fraud_rules: { disposable_email: 'block' } });
    const res = await signup(server(), p, { key: 'c1', email: 'buyer@sub.yopmail.com' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.partner, null);
    assert.deepEqual(res.body.data.fraud, {
      blocked: true,
      rules: [{ rule: 'disposable_email', action: 'block' }],
      flags: [],
    });
    assert.equal(await signups(server(), p, partnerId), 0);
    const overview = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(overview.total_customers, 1);
    assert.equal(overview.total_referred_customers, 0);
    // Its sales earn no commission.
    const sale = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: { key: 's1', amount: 100, action: 'sale', customer: { key: 'c1' } },
    });
    assert.equal(sale.status, 200, sale.text);
    assert.deepEqual(sale.body.data.rewards, []);
  });

  test('an ordinary signup answers no fraud field and opens nothing', async () => {
    const { p } = await program(server());
    const res = await signup(server(), p, {
      key: 'c1',
      email: 'buyer@example.com',
      context: { ip: '203.0.113.9' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal('fraud' in res.body.data, false);
    assert.deepEqual(
      (await recordedEvents(server(), p)).filter((e) => e.event.startsWith('fraud.')),
      [],
    );
  });

  test('self_referral: block keeps the guard, flag credits and holds, off lets it through', async () => {
    const cases = [
      ['block', 'rejected'],
      ['flag', 'pending'],
      ['off', 'approved'],
    ] as const;
    for (const [action, commission] of cases) {
      const { p } = await program(server(), { fraud_rules: { self_referral: action } });
      const res = await signup(server(), p, { key: 'c1', email: 'Jane+shop@example.com' });
      assert.equal(res.status, 201, res.text);
      // Dots and tags count only for Gmail: +shop on example.com is another mailbox.
      assert.equal('fraud' in res.body.data, false, action);
      const own = await signup(server(), p, { key: 'c2', email: 'JANE@example.com' });
      assert.equal(own.status, 201, own.text);
      if (action === 'off') assert.equal('fraud' in own.body.data, false);
      else assert.deepEqual(own.body.data.fraud?.rules, [{ rule: 'self_referral', action }], action);
      const sale = await server().request('POST', '/v1/transactions', {
        token: p.token,
        body: { key: 's1', amount: 100, action: 'sale', customer: { key: 'c2' } },
      });
      assert.equal(sale.status, 200, sale.text);
      const listed = await server().request('GET', '/v1/commissions?transaction=s1', { token: p.token });
      const shown = itemAt(listed.body.data).status;
      assert.equal(shown === 'denied' ? 'rejected' : shown, commission, action);
    }
  });

  test('same_address: from the limit on, signups of one owner from one address are flagged or blocked', async () => {
    for (const action of ['flag', 'block'] as const) {
      const { p, partnerId } = await program(server(), {
        fraud_rules: { same_address: action },
        same_address_limit: 2,
      });
      const from = (ip: string, key: string) =>
        signup(server(), p, { key, email: `${key}@example.com`, context: { ip, user_agent: 'test' } });
      for (const key of ['a1', 'a2']) {
        const ok = await from('198.51.100.7', key);
        assert.equal('fraud' in ok.body.data, false, `${action} ${key}`);
      }
      assert.equal('fraud' in (await from('198.51.100.8', 'b1')).body.data, false);
      const third = await from('198.51.100.7', 'a3');
      assert.equal(third.status, 201, third.text);
      assert.deepEqual(third.body.data.fraud?.rules, [{ rule: 'same_address', action }]);
      assert.equal(third.body.data.partner, action === 'block' ? null : partnerId);
      assert.equal(await signups(server(), p, partnerId), action === 'block' ? 3 : 4);
      const events = (await recordedEvents(server(), p)).filter((e) => e.event === 'fraud.flagged');
      assert.equal(events.length, action === 'flag' ? 1 : 0);
      if (action === 'flag') {
        const evidence = events[0]?.payload.evidence;
        assert.deepEqual(Object.keys(evidence ?? {}).sort(), ['address', 'limit', 'signups_in_a_day']);
        // The evidence names the address by a salted hash, never the address itself.
        assert.equal(JSON.stringify(evidence).includes('198.51.100.7'), false);
      }
    }
  });

  test('a sale that creates its buyer runs the rules with its context: flag holds, block earns nothing', async () => {
    for (const action of ['flag', 'block'] as const) {
      const { p } = await program(server(), { fraud_rules: { same_address: action }, same_address_limit: 1 });
      const sale = (key: string) =>
        server().request('POST', '/v1/transactions', {
          token: p.token,
          body: {
            key: `s-${key}`,
            amount: 100,
            action: 'sale',
            customer: { key, email: `${key}@example.com`, partner: { key: 'jane' } },
            options: { create_customer: true },
            context: { ip: '192.0.2.1' },
          },
        });
      const first = await sale('b1');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.rewards.length, 1);
      const second = await sale('b2');
      assert.equal(second.status, 200, second.text);
      const buyer = await server().request('GET', '/v1/customers/b2', { token: p.token });
      if (action === 'block') {
        assert.equal(buyer.body.data.partner, null);
        assert.deepEqual(second.body.data.rewards, []);
      } else {
        const listed = await server().request('GET', '/v1/commissions?transaction=s-b2', { token: p.token });
        const held = itemAt(listed.body.data);
        assert.equal(held.status, 'pending');
        assert.notEqual(held.fraud_flag, null);
      }
    }
  });
});
