import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  commissionProgram,
  commissionsOf,
  figuresOf,
  recount,
  sell,
} from '../../../test/commission-factories.ts';
import {
  describeEachDatabase,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { withClockedServer } from '../../../test/outbox.ts';
import { settleDueCommissionsOfAllPrograms } from '../commissions/commissions.service.ts';

/** A customer of partner `pa` with a disposable e-mail: flagged under the default rules. */
async function flaggedBuyer(server: TestServer, p: TestProgram<'affiliate'>, key = 'c-bad') {
  const res = await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key, email: `${key}@mailinator.com`, partner: { key: 'pa' } },
  });
  assert.equal(res.status, 201, res.text);
  return itemAt(res.body.data.fraud?.flags ?? []);
}

const commissionOfSale = async (server: TestServer, p: TestProgram<'affiliate'>, sale: string) =>
  itemAt(await commissionsOf(server, p, `&transaction=${sale}`));

describeEachDatabase('fraud review queue', (server, dialect) => {
  test('the hold: time does not approve a flagged commission, a payout skips it, clearing lets it go', async () => {
    await withClockedServer(dialect, {}, async (own, clock) => {
      const { p, partners } = await commissionProgram(own, { commission_hold_days: 3 });
      const flag = await flaggedBuyer(own, p);
      await sell(own, p, 'c-pa', 'fair', 100);
      await sell(own, p, 'c-bad', 'held', 200);
      clock.advance(4 * 86_400_000);
      assert.equal((await commissionOfSale(own, p, 'fair')).status, 'approved');
      const held = await commissionOfSale(own, p, 'held');
      assert.equal(held.status, 'pending');
      assert.equal(held.fraud_flag, flag);
      // Nobody approves it by hand either while the flag is open.
      const approve = await own.request('POST', '/v1/commissions/approve', {
        token: p.token,
        body: { ids: [held.id] },
      });
      assert.equal(approve.status, 422, approve.text);
      assert.deepEqual(Object.keys(approve.error.errors), ['ids.0']);
      // The worker's sweep does not approve it.
      await settleDueCommissionsOfAllPrograms(own.deps);
      assert.equal((await commissionOfSale(own, p, 'held')).status, 'pending');
      const payout = await own.request('POST', '/v1/payouts', { token: p.token, body: {} });
      assert.equal(payout.status, 201, payout.text);
      assert.deepEqual(payout.body.data.items, [
        { partner: partners.pa, amount: 10, commission_count: 1, payout_method: null },
      ]);
      assert.deepEqual(await figuresOf(own, p, partners.pa), await recount(own, p, partners.pa));

      const cleared = await own.request('POST', `/v1/fraud/flags/${flag}/clear`, { token: p.token });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.data.status, 'cleared');
      const released = await commissionOfSale(own, p, 'held');
      assert.equal(released.fraud_flag, null);
      assert.equal(released.status, 'approved');
      assert.deepEqual(await figuresOf(own, p, partners.pa), await recount(own, p, partners.pa));
      const second = await own.request('POST', '/v1/payouts', { token: p.token, body: {} });
      assert.equal(second.status, 201, second.text);
      assert.equal(second.body.data.total, 20);
      // Clearing again answers the flag as it is; confirming it now is refused on `id`.
      const again = await own.request('POST', `/v1/fraud/flags/${flag}/clear`, { token: p.token });
      assert.equal(again.status, 200, again.text);
      const confirm = await own.request('POST', `/v1/fraud/flags/${flag}/confirm`, {
        token: p.token,
        body: {},
      });
      assert.equal(confirm.status, 422, confirm.text);
      assert.deepEqual(Object.keys(confirm.error.errors), ['id']);
      const events = (await recordedEvents(own, p)).map((e) => e.event).filter((e) => e.startsWith('fraud.'));
      assert.deepEqual(events, ['fraud.flagged', 'fraud.cleared']);
    });
  });

  test('a later sale of a cleared customer earns normally; one of a held customer is held too', async () => {
    const { p } = await commissionProgram(server());
    const flag = await flaggedBuyer(server(), p);
    await sell(server(), p, 'c-bad', 's1', 100);
    await sell(server(), p, 'c-bad', 's2', 100);
    assert.equal((await commissionOfSale(server(), p, 's2')).fraud_flag, flag);
    await server().request('POST', `/v1/fraud/flags/${flag}/clear`, { token: p.token });
    await sell(server(), p, 'c-bad', 's3', 100);
    for (const sale of ['s1', 's2', 's3']) {
      const commission = await commissionOfSale(server(), p, sale);
      assert.equal(commission.status, 'approved', sale);
      assert.equal(commission.fraud_flag, null, sale);
    }
  });

  test('confirm with deny: held commissions denied, figures equal a recount, the partner archived on request', async () => {
    const { p, partners } = await commissionProgram(server());
    const flag = await flaggedBuyer(server(), p);
    await sell(server(), p, 'c-pa', 'fair', 100);
    await sell(server(), p, 'c-bad', 'held', 300);
    const res = await server().request('POST', `/v1/fraud/flags/${flag}/confirm`, {
      token: p.token,
      body: { deny: true, archive_owner: true },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'confirmed');
    const denied = await commissionOfSale(server(), p, 'held');
    assert.equal(denied.status, 'denied');
    assert.equal(denied.reason, 'fraud');
    assert.equal(denied.fraud_flag, flag);
    assert.equal((await commissionOfSale(server(), p, 'fair')).status, 'approved');
    assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
    const partner = await server().request('GET', `/v1/partners/${partners.pa}`, { token: p.token });
    assert.equal(partner.body.data.status, 'archived');
    const clear = await server().request('POST', `/v1/fraud/flags/${flag}/clear`, { token: p.token });
    assert.equal(clear.status, 422, clear.text);
    assert.deepEqual(Object.keys(clear.error.errors), ['id']);
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.ok(events.includes('fraud.confirmed'));
    assert.ok(events.includes('commission.denied'));
  });

  test('confirm without deny lets the held money follow the normal rules', async () => {
    const { p } = await commissionProgram(server());
    const flag = await flaggedBuyer(server(), p);
    await sell(server(), p, 'c-bad', 'held', 100);
    const res = await server().request('POST', `/v1/fraud/flags/${flag}/confirm`, {
      token: p.token,
      body: { deny: false },
    });
    assert.equal(res.status, 200, res.text);
    const commission = await commissionOfSale(server(), p, 'held');
    assert.equal(commission.status, 'approved');
    assert.equal(commission.fraud_flag, null);
  });

  test('the list filters by status, rule and partner, pages, and knows no other program', async () => {
    const { p, partners } = await commissionProgram(server());
    const first = await flaggedBuyer(server(), p, 'b1');
    const second = await flaggedBuyer(server(), p, 'b2');
    await server().request('POST', `/v1/fraud/flags/${first}/clear`, { token: p.token });
    const list = async (query: string) => {
      const res = await server().request('GET', `/v1/fraud/flags?${query}`, { token: p.token });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((f) => f.id);
    };
    assert.deepEqual(await list(''), [second, first]);
    assert.deepEqual(await list('sort=asc'), [first, second]);
    assert.deepEqual(await list('status=open'), [second]);
    assert.deepEqual(await list('status=cleared'), [first]);
    assert.deepEqual(await list('rule=disposable_email&limit=1'), [second]);
    assert.deepEqual(await list('rule=same_address'), []);
    assert.deepEqual(await list(`partner=${partners.pa}`), [second, first]);
    assert.deepEqual(await list(`partner=${partners.pb}`), []);
    const bad = await server().request('GET', '/v1/fraud/flags?rule=nope', { token: p.token });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(Object.keys(bad.error.errors), ['rule']);

    const one = await server().request('GET', `/v1/fraud/flags/${second}`, { token: p.token });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(
      { ...one.body.data, created_at: '', updated_at: '' },
      {
        id: second,
        rule: 'disposable_email',
        status: 'open',
        subject: { type: 'customer', id: 'b2' },
        owner: { type: 'partner', id: partners.pa },
        evidence: { domain: 'mailinator.com' },
        created_at: '',
        updated_at: '',
        resolved_at: null,
      },
    );

    const other = await server().newProgram('affiliate');
    for (const [method, path] of [
      ['GET', `/v1/fraud/flags/${second}`],
      ['POST', `/v1/fraud/flags/${second}/clear`],
      ['POST', `/v1/fraud/flags/${second}/confirm`],
      ['GET', '/v1/fraud/flags/no-such-flag'],
    ] as const) {
      const res = await server().request(method, path, {
        token: other.token,
        body: method === 'POST' ? {} : undefined,
      });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    assert.equal((await list('status=open')).length, 1);
  });
});
