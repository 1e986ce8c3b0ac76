import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { locationOf } from '../../../test/portal-client.ts';

/** A partner whose name is a script, its customer and a sale of 100 USD (a 20 % commission). */
async function partnerWithSale(server: TestServer, p: TestProgram<'affiliate'>) {
  await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { commission: { type: 'percent', value: 20 } } },
  });
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: {
      email: 'seller@example.com',
      name: '<script>alert(1)</script>',
      key: 'seller',
      payout_method: 'paypal',
      payout_details: { email: 'pay@example.com' },
    },
  });
  assert.equal(partner.status, 201, partner.text);
  await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key: 'buyer', email: 'buyer@example.com', name: '<b>Buyer</b>', partner: { key: 'seller' } },
  });
  const sale = await server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { key: 'sale-1', amount: 100, amount_units: 'USD', action: 'sale', customer: { key: 'buyer' } },
  });
  assert.equal(sale.status, 200, sale.text);
  return partner.body.data.id;
}

describeEachDatabase('owner console partner, customers and transactions', (server) => {
  test('a partner’s page shows its links, figures, customers, commissions and payout method; archive and back', async () => {
    const p = await server().newProgram('affiliate');
    const id = await partnerWithSale(server(), p);
    const admin = await memberClient(server, p, 'runner@example.com', 'admin');
    const list = await admin.get(`/admin/programs/${p.publicId}/partners`);
    assert.match(list.text, new RegExp(`href="/admin/programs/${p.publicId}/partners/${id}"`));
    const base = `/admin/programs/${p.publicId}/partners/${id}`;
    const page = await admin.get(base);
    assert.equal(page.status, 200, page.text);
    assert.doesNotMatch(page.text, /<script>alert/);
    assert.match(page.text, /&lt;script>alert\(1\)&lt;\/script>/);
    assert.match(page.text, /aff=seller/);
    assert.match(page.text, /buyer@example\.com/);
    assert.match(page.text, /\$20\.00/);
    assert.match(page.text, /paypal/);
    assert.match(page.text, /pay@example\.com/);
    const archived = await admin.post(`${base}/archive`, { action: 'archive' });
    assert.equal(locationOf(archived), `${base}?done=archive`);
    assert.equal(
      (await server().request('GET', `/v1/partners/${id}`, { token: p.token })).body.data.status,
      'archived',
    );
    assert.match((await admin.get(base)).text, /Unarchive/);
    await admin.post(`${base}/archive`, { action: 'unarchive' });
    assert.equal(
      (await server().request('GET', `/v1/partners/${id}`, { token: p.token })).body.data.status,
      'active',
    );
    const activity = await server().request('GET', '/v1/activity', { token: p.token });
    assert.deepEqual(activity.body.data.map((entry) => entry.action).slice(0, 2), [
      'partner.unarchive',
      'partner.archive',
    ]);

    const viewer = await memberClient(server, p, 'reader@example.com', 'viewer');
    assert.doesNotMatch((await viewer.get(base)).text, />Archive</);
    assert.equal((await viewer.post(`${base}/archive`, { action: 'archive' })).status, 403);
    const other = await server().newProgram('affiliate');
    const stranger = await memberClient(server, other, 'stranger@example.com', 'owner');
    assert.equal((await stranger.get(`/admin/programs/${other.publicId}/partners/${id}`)).status, 404);
    assert.equal(
      (await stranger.post(`/admin/programs/${other.publicId}/partners/${id}/archive`, { action: 'archive' }))
        .status,
      404,
    );
  });

  test('customers and transactions are listed and searched; a refund above what is left is refused next to its field', async () => {
    const p = await server().newProgram('affiliate');
    await partnerWithSale(server(), p);
    const admin = await memberClient(server, p, 'books@example.com', 'admin');
    const customers = await admin.get(`/admin/programs/${p.publicId}/customers?q=buyer@example.com`);
    assert.equal(customers.status, 200, customers.text);
    assert.match(customers.text, /&lt;b>Buyer&lt;\/b>/);
    assert.doesNotMatch((await admin.get(`/admin/programs/${p.publicId}/customers?q=nobody`)).text, /buyer@/);
    const sales = await admin.get(`/admin/programs/${p.publicId}/transactions?q=buyer`);
    assert.match(sales.text, /sale-1/);
    assert.match(sales.text, /\$100\.00/);

    const sale = `/admin/programs/${p.publicId}/transactions/sale-1`;
    const tooMuch = await admin.submit(`${sale}/refund`, { amount: '150' }, sale);
    assert.equal(tooMuch.status, 422);
    assert.match(tooMuch.text, /id="field-amount-error">[^<]*100/);
    const bad = await admin.post(`${sale}/refund`, { amount: 'ten' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /id="field-amount-error"/);
    const stored = await server().request('GET', '/v1/transactions/sale-1', { token: p.token });
    assert.equal(stored.body.data.refunded_amount, 0, 'nothing written');

    const done = await admin.post(`${sale}/refund`, { amount: '40' });
    assert.equal(locationOf(done), `${sale}?done=refunded`);
    const after = await server().request('GET', '/v1/transactions/sale-1', { token: p.token });
    assert.equal(after.body.data.refunded_amount, 40);
    assert.match((await admin.get(sale)).text, /\$40\.00/);

    const viewer = await memberClient(server, p, 'auditor@example.com', 'viewer');
    assert.doesNotMatch((await viewer.get(sale)).text, />Refund</);
    assert.equal((await viewer.post(`${sale}/refund`, { amount: '1' })).status, 403);
    const forged = await admin.post(`${sale}/refund`, { amount: '1', _csrf: 'forged' });
    assert.equal(forged.status, 403);

    const other = await server().newProgram('affiliate');
    const stranger = await memberClient(server, other, 'outsider@example.com', 'owner');
    assert.equal((await stranger.get(`/admin/programs/${other.publicId}/transactions/sale-1`)).status, 404);
    assert.equal(
      (await stranger.post(`/admin/programs/${other.publicId}/transactions/sale-1/refund`, { amount: '1' }))
        .status,
      404,
    );
    const letters = await server().newProgram('newsletter');
    const editor = await memberClient(server, letters, 'editor@example.com', 'owner');
    assert.equal((await editor.get(`/admin/programs/${letters.publicId}/customers`)).status, 404);
  });
});
