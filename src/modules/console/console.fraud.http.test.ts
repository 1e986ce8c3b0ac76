import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commissionProgram, commissionsOf, sell } from '../../../test/commission-factories.ts';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { locationOf } from '../../../test/portal-client.ts';

/** A customer of partner `pa` with a disposable e-mail (flagged under the default rules) and a sale. */
async function flaggedSale(server: TestServer, p: TestProgram<'affiliate'>, key: string) {
  const res = await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key, email: `${key}@mailinator.com`, partner: { key: 'pa' } },
  });
  assert.equal(res.status, 201, res.text);
  await sell(server, p, key, `sale-${key}`, 100);
  const flag = res.body.data.fraud?.flags?.[0] ?? '';
  assert.ok(flag);
  return flag;
}

describeEachDatabase('owner console fraud review', (server) => {
  test('open flags are listed with their evidence; Clear lets the commission go, Confirm denies it', async () => {
    const { p } = await commissionProgram(server(), {});
    const first = await flaggedSale(server(), p, 'c-one');
    const second = await flaggedSale(server(), p, 'c-two');
    const client = await memberClient(server, p, 'reviewer@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}/review`;
    const page = await client.get(base);
    assert.equal(page.status, 200);
    assert.match(page.text, /Disposable e-mail/);
    assert.match(page.text, /mailinator\.com/);
    assert.match(page.text, /customer c-one/);

    const cleared = await client.post(`${base}/decide`, { one: `clear:${first}` });
    assert.equal(locationOf(cleared), `${base}?done=clear`);
    const confirmed = await client.post(`${base}/decide`, { one: `confirm:${second}` });
    assert.equal(locationOf(confirmed), `${base}?done=confirm`);
    const again = await client.post(`${base}/decide`, { one: `clear:${second}` });
    assert.equal(again.status, 422, 'a confirmed flag is not cleared');

    const statuses = async (sale: string) =>
      (await commissionsOf(server(), p, `&transaction=${sale}`)).map((c) => [c.status, c.fraud_flag]);
    assert.deepEqual(await statuses('sale-c-two'), [['denied', second]]);
    const afterClear = await statuses('sale-c-one');
    assert.equal(afterClear[0]?.[1], null, 'no longer held');
    const flags = await server().request('GET', '/v1/fraud/flags?status=confirmed', { token: p.token });
    assert.deepEqual(
      flags.body.data.map((f) => f.id),
      [second],
    );
    assert.match((await client.get(`${base}?status=cleared`)).text, /customer c-one/);
  });

  test('a viewer sees the flags without decisions', async () => {
    const { p } = await commissionProgram(server(), {});
    const flag = await flaggedSale(server(), p, 'c-seen');
    const viewer = await memberClient(server, p, 'seer@example.com', 'viewer');
    const page = await viewer.get(`/admin/programs/${p.publicId}/review`);
    assert.match(page.text, /customer c-seen/);
    assert.doesNotMatch(page.text, />Clear<|>Confirm</);
    assert.equal(
      (await viewer.post(`/admin/programs/${p.publicId}/review/decide`, { one: `clear:${flag}` })).status,
      403,
    );
  });
});
