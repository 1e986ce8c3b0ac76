import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

const overview = async (server: TestServer, p: TestProgram) => {
  const res = await server.request('GET', '/v1/program', { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
};

describeEachDatabase('self-referral guard', (server) => {
  test("an affiliate customer with its partner's own e-mail is stored; its sales earn no commission", async () => {
    const p = await server().newProgram('affiliate');
    const call = <const M extends string, const P extends string>(method: M, path: P, body?: unknown) =>
      server().request(method, path, { token: p.token, body });
    const partner = await call('POST', '/v1/partners', { email: 'Jane.Doe@gmail.com', key: 'jane' });
    assert.equal(partner.status, 201, partner.text);
    const self = await call('POST', '/v1/customers', {
      key: 'self',
      email: 'janedoe+shop@GMAIL.com',
      partner: { key: 'jane' },
    });
    assert.equal(self.status, 201, self.text);
    const honest = await call('POST', '/v1/customers', {
      key: 'friend',
      email: 'friend@example.com',
      partner: { key: 'jane' },
    });
    assert.equal(honest.status, 201, honest.text);

    const selfSale = await call('POST', '/v1/transactions', {
      key: 's1',
      amount: 100,
      action: 'sale',
      customer: { key: 'self' },
    });
    assert.equal(selfSale.status, 200, selfSale.text);
    const rejected = itemAt(selfSale.body.data.rewards);
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.reason, 'self_referral');
    const fairSale = await call('POST', '/v1/transactions', {
      key: 's2',
      amount: 100,
      action: 'sale',
      customer: { key: 'friend' },
    });
    assert.equal(fairSale.status, 200, fairSale.text);
    assert.notEqual(itemAt(fairSale.body.data.rewards).status, 'rejected');
    assert.equal('reason' in itemAt(fairSale.body.data.rewards), false);

    // Only the honest sale's commission is owed to the partner.
    const fetched = await call('GET', `/v1/partners/${partner.body.data.id}`);
    assert.equal(fetched.status, 200, fetched.text);
    const owed = [...fetched.body.data.commissions.pending, ...fetched.body.data.commissions.not_paid];
    const total = owed.reduce((sum, c) => sum + Number(c.amount ?? 0), 0);
    assert.equal(total, fairSale.body.data.rewards[0]?.amount);
    const stored = await call('GET', '/v1/transactions/s1');
    assert.equal(stored.body.data.rewards[0]?.status, 'rejected');
    assert.equal(stored.body.data.rewards[0]?.reason, 'self_referral');

    const figures = await overview(server(), p);
    assert.equal(figures.total_rejected_self_referrals, 1);
    assert.equal(figures.total_customers, 2);

    // To a reviewer the self-referral's commission is denied, with its reason, and cannot be approved.
    const listed = await call('GET', '/v1/commissions?transaction=s1');
    assert.equal(listed.status, 200, listed.text);
    const commission = itemAt(listed.body.data);
    assert.equal(commission.status, 'denied');
    assert.equal(commission.reason, 'self_referral');
    const approve = await call('POST', '/v1/commissions/approve', { ids: [commission.id] });
    assert.equal(approve.status, 422, approve.text);
    assert.match(approve.error.errors['ids.0']?.[0] ?? '', /denied and cannot be approved/);

    // Taking the sale back leaves the partner's figures as they were.
    const deleted = await call('DELETE', '/v1/transactions/s1');
    assert.equal(deleted.status, 200, deleted.text);
    const after = await call('GET', `/v1/partners/${partner.body.data.id}`);
    assert.deepEqual(after.body.data.commissions, fetched.body.data.commissions);
    const removed = await call('DELETE', '/v1/customers/self');
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await overview(server(), p)).total_rejected_self_referrals, 0);
  });

  test("a referred customer with its referrer's e-mail earns neither side a reward", async () => {
    const p = await server().newProgram('referral');
    const call = <const M extends string, const P extends string>(method: M, path: P, body?: unknown) =>
      server().request(method, path, { token: p.token, body });
    // The default settings reward both sides of a first purchase.
    assert.equal((await call('POST', '/v1/customers', { id: 'amy', email: 'amy@example.com' })).status, 201);
    const tagged = await call('POST', '/v1/customers', {
      id: 'amy3',
      email: 'amy+again@icloud.com',
      referring_customer: { id: 'amy' },
    });
    assert.equal(tagged.status, 201, tagged.text);
    await call('PUT', '/v1/customers/amy', { update: { email: 'amy@icloud.com' } });
    const other = await call('POST', '/v1/customers', {
      id: 'amy4',
      email: 'amy+more@icloud.com',
      referring_customer: { id: 'amy' },
    });
    assert.equal(other.status, 201, other.text);
    const sale = await call('POST', '/v1/transactions', {
      key: 't1',
      amount: 50,
      amount_units: 'USD',
      action: 'sale',
      customer: { id: 'amy4' },
    });
    assert.equal(sale.status, 200, sale.text);
    assert.ok(sale.body.data.rewards.length > 0, sale.text);
    for (const reward of sale.body.data.rewards) {
      assert.equal(reward.status, 'rejected');
      assert.equal(reward.reason, 'self_referral');
    }
    const balance = await call('GET', '/v1/customers/amy/balance');
    assert.equal(balance.status, 200, balance.text);
    assert.deepEqual(balance.body.data.balance.currency, []);
    const buyerBalance = await call('GET', '/v1/customers/amy4/balance');
    assert.deepEqual(buyerBalance.body.data.balance.currency, []);
    // A fair referral of the same referrer is rewarded as usual.
    await call('POST', '/v1/customers', {
      id: 'bob',
      email: 'bob@example.com',
      referring_customer: { id: 'amy' },
    });
    const fair = await call('POST', '/v1/transactions', {
      key: 't2',
      amount: 50,
      amount_units: 'USD',
      action: 'sale',
      customer: { id: 'bob' },
    });
    assert.equal(fair.status, 200, fair.text);
    assert.ok(
      fair.body.data.rewards.every((r) => r.status === 'ok' && r.reason === undefined),
      fair.text,
    );
    const earned = await call('GET', '/v1/customers/amy/balance');
    assert.equal(earned.body.data.balance.currency.length, 1, earned.text);
    assert.equal((await overview(server(), p)).total_rejected_self_referrals, 1);
  });
});
