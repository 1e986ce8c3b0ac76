import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { locationOf, PageClient } from '../../../test/portal-client.ts';
import { addMember, createUser } from './console.service.ts';

const PASSWORD = 'Console123';

async function signedInAs(server: () => TestServer, p: TestProgram, email: string, role: 'admin' | 'viewer') {
  const created = await createUser(server().deps, { email, password: PASSWORD, operator: false });
  assert.equal(created.kind, 'created');
  if (created.kind === 'created') await addMember(server().deps, p.publicId, created.user.id, role);
  const client = new PageClient(server);
  assert.equal((await client.submit('/admin/sign-in', { email, password: PASSWORD })).status, 303);
  return client;
}

/** A partner with one approved commission of 20 % of 100 USD. */
async function approvedCommission(server: TestServer, p: TestProgram<'affiliate'>) {
  await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { commission: { type: 'percent', value: 20 } } },
  });
  await server.request('POST', '/v1/partners', {
    token: p.token,
    body: {
      email: 'earner@example.com',
      name: 'Earner',
      key: 'earner',
      payout_method: 'paypal',
      payout_details: { email: 'pay@example.com' },
    },
  });
  await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key: 'buyer', email: 'buyer@example.com', partner: { key: 'earner' } },
  });
  const sale = await server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { key: 'sale', amount: 100, amount_units: 'USD', action: 'sale', customer: { key: 'buyer' } },
  });
  assert.equal(sale.status, 200, sale.text);
  const ids = (await server.request('GET', '/v1/commissions', { token: p.token })).body.data.map((c) => c.id);
  await server.request('POST', '/v1/commissions/approve', { token: p.token, body: { ids } });
}

describeEachDatabase('owner console payouts', (server) => {
  test('nothing to pay is said on the page; then a payout is created, exported and marked paid', async () => {
    const p = await server().newProgram('affiliate');
    const client = await signedInAs(server, p, 'payer@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}/payouts`;
    const empty = await client.submit(base, { currency: 'USD' });
    assert.equal(empty.status, 422);
    assert.match(empty.text, /No partner has approved commissions in USD/);

    await approvedCommission(server(), p);
    const made = await client.submit(base, { currency: 'usd' });
    assert.equal(made.status, 303, made.text);
    const payoutPath = locationOf(made).replace(/\?.*$/, '');
    const page = await client.get(locationOf(made));
    assert.match(page.text, /The payout was created/);
    assert.match(page.text, /Earner/);
    assert.match(page.text, /\$20\.00/);
    const file = await client.get(`${payoutPath}/export?format=paypal`);
    assert.equal(file.status, 200);
    assert.match(
      file.headers.get('content-disposition') ?? '',
      /attachment; filename="payout-.+-paypal\.csv"/,
    );
    assert.match(file.text, /pay@example\.com/);

    const paid = await client.post(`${payoutPath}/settle`, { action: 'mark-paid' });
    assert.equal(locationOf(paid), `${payoutPath}?done=mark-paid`);
    const payouts = await server().request('GET', '/v1/payouts', { token: p.token });
    assert.deepEqual(
      payouts.body.data.map((x) => x.status),
      ['paid'],
    );
    const again = await client.post(`${payoutPath}/settle`, { action: 'cancel' });
    assert.equal(again.status, 422, 'a paid payout cannot be cancelled');
  });

  test('a viewer sees payouts but cannot create or settle one; another program’s payout is not found', async () => {
    const p = await server().newProgram('affiliate');
    await approvedCommission(server(), p);
    const made = await server().request('POST', '/v1/payouts', { token: p.token, body: {} });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id;
    const viewer = await signedInAs(server, p, 'watcher@example.com', 'viewer');
    const base = `/admin/programs/${p.publicId}/payouts`;
    const list = await viewer.get(base);
    assert.match(list.text, new RegExp(id));
    assert.doesNotMatch(list.text, /Create payout/);
    assert.doesNotMatch((await viewer.get(`${base}/${id}`)).text, /Mark as paid/);
    assert.equal((await viewer.post(base, { currency: 'USD' })).status, 403);
    assert.equal((await viewer.post(`${base}/${id}/settle`, { action: 'cancel' })).status, 403);

    const other = await server().newProgram('affiliate');
    const stranger = await signedInAs(server, other, 'stranger@example.com', 'admin');
    assert.equal((await stranger.get(`/admin/programs/${other.publicId}/payouts/${id}`)).status, 404);
    assert.equal((await stranger.get(`/admin/programs/${other.publicId}/payouts/${id}/export`)).status, 404);
  });
});
