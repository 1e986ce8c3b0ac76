import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { signUpPartner } from '../../../test/portal-client.ts';

describeEachDatabase('fraud hold in the partner portal', (server) => {
  test('a held commission shows as "In review", without the flag or its evidence', async () => {
    const p = await server().newProgram('affiliate');
    const { client } = await signUpPartner(server, `/p/${p.publicId}`, 'pat@example.com');
    const partner = itemAt(
      (await server().request('GET', '/v1/partners?limit=1', { token: p.token })).body.data,
    );
    const customer = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { key: 'held', email: 'buyer@mailinator.com', partner: { id: partner.id } },
    });
    assert.equal(customer.status, 201, customer.text);
    const flag = itemAt(customer.body.data.fraud?.flags ?? []);
    const sale = await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: { key: 's1', amount: 100, action: 'sale', customer: { key: 'held' } },
    });
    assert.equal(sale.status, 200, sale.text);
    const dashboard = `/p/${p.publicId}/dashboard`;
    const held = await client.get(dashboard);
    assert.equal(held.status, 200, held.text);
    assert.match(held.text, /In review/);
    assert.doesNotMatch(held.text, new RegExp(`${flag}|mailinator|disposable`));
    const cleared = await server().request('POST', `/v1/fraud/flags/${flag}/clear`, { token: p.token });
    assert.equal(cleared.status, 200, cleared.text);
    assert.doesNotMatch((await client.get(dashboard)).text, /In review/);
  });
});
