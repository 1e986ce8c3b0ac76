import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { locationOf } from '../../../test/portal-client.ts';

async function leadOf(server: TestServer, p: TestProgram<'affiliate'>, email: string, name: string) {
  const lead = await server.request('POST', '/v1/leads', {
    token: p.token,
    body: { name, email, partner: { key: 'finder' } },
  });
  assert.equal(lead.status, 201, lead.text);
  return String(lead.body.data.id);
}

describeEachDatabase('owner console leads', (server) => {
  test('a lead is converted with a sale’s amount or rejected; bad amounts are said next to the field', async () => {
    const p = await server().newProgram('affiliate');
    await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'finder@example.com', name: 'Finder', key: 'finder' },
    });
    const id = await leadOf(server(), p, 'lead@example.com', '<img src=x onerror=alert(1)>');
    const other = await leadOf(server(), p, 'second@example.com', 'Second');
    const admin = await memberClient(server, p, 'closer@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}/leads`;
    const list = await admin.get(`${base}?status=submitted`);
    assert.equal(list.status, 200, list.text);
    assert.match(list.text, /&lt;img src=x onerror=alert\(1\)>/);
    assert.doesNotMatch(list.text, /<img src=x/);

    const empty = await admin.submit(`${base}/${id}/convert`, {}, `${base}/${id}`);
    assert.equal(empty.status, 422);
    assert.match(empty.text, /id="field-commission_transaction_amount-error"/);
    const bad = await admin.post(`${base}/${id}/convert`, { commission_transaction_amount: '-5' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /id="field-commission_transaction_amount-error"/);
    const unchanged = await server().request('GET', `/v1/leads/${id}`, { token: p.token });
    assert.equal(unchanged.body.data.status, 'submitted', 'nothing written');

    const converted = await admin.post(`${base}/${id}/convert`, { commission_transaction_amount: '250' });
    assert.equal(locationOf(converted), `${base}/${id}?done=converted`);
    const page = await admin.get(locationOf(converted));
    assert.match(page.text, /Converted to the customer/);
    assert.doesNotMatch(page.text, />Convert</);
    const customers = await server().request('GET', '/v1/customers', { token: p.token });
    assert.equal(customers.body.data[0]?.email, 'lead@example.com');

    const rejected = await admin.post(`${base}/${other}/reject`, {});
    assert.equal(locationOf(rejected), `${base}/${other}?done=rejected`);
    const again = await admin.post(`${base}/${other}/reject`, {});
    assert.equal(again.status, 422, 'a rejected lead cannot be rejected again');
    const activity = await server().request('GET', '/v1/activity', { token: p.token });
    assert.deepEqual(activity.body.data.map((entry) => entry.action).slice(0, 2), [
      'lead.reject',
      'lead.convert',
    ]);
  });

  test('viewers read leads but cannot move them; another program’s lead and other program types 404', async () => {
    const p = await server().newProgram('affiliate');
    await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'finder@example.com', key: 'finder' },
    });
    const id = await leadOf(server(), p, 'quiet@example.com', 'Quiet');
    const base = `/admin/programs/${p.publicId}/leads`;
    const viewer = await memberClient(server, p, 'looker@example.com', 'viewer');
    const page = await viewer.get(`${base}/${id}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, />Convert<|>Reject</);
    assert.equal((await viewer.post(`${base}/${id}/reject`, {})).status, 403);
    assert.equal(
      (await viewer.post(`${base}/${id}/convert`, { commission_transaction_amount: '1' })).status,
      403,
    );
    const owner = await memberClient(server, p, 'boss@example.com', 'owner');
    assert.equal((await owner.post(`${base}/${id}/reject`, { _csrf: 'forged' })).status, 403);

    const second = await server().newProgram('affiliate');
    const stranger = await memberClient(server, second, 'elsewhere@example.com', 'owner');
    const theirs = `/admin/programs/${second.publicId}/leads/${id}`;
    assert.equal((await stranger.get(theirs)).status, 404);
    assert.equal((await stranger.post(`${theirs}/reject`, {})).status, 404);
    const friends = await server().newProgram('referral');
    const host = await memberClient(server, friends, 'host@example.com', 'owner');
    assert.equal((await host.get(`/admin/programs/${friends.publicId}/leads`)).status, 404);
  });
});
