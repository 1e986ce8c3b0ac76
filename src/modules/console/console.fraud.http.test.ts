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
    assert.match(page.text, /customer <a href="[^"]*\/customers\?q=c-one">c-one<\/a>/);

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
    assert.match(
      (await client.get(`${base}?status=cleared`)).text,
      /customer <a href="[^"]*\/customers\?q=c-one">c-one<\/a>/,
    );
  });

  test('a viewer sees the flags without decisions', async () => {
    const { p } = await commissionProgram(server(), {});
    const flag = await flaggedSale(server(), p, 'c-seen');
    const viewer = await memberClient(server, p, 'seer@example.com', 'viewer');
    const page = await viewer.get(`/admin/programs/${p.publicId}/review`);
    assert.match(page.text, /customer <a href="[^"]*">c-seen<\/a>/);
    assert.doesNotMatch(page.text, />Clear<|>Confirm</);
    assert.equal(
      (await viewer.post(`/admin/programs/${p.publicId}/review/decide`, { one: `clear:${flag}` })).status,
      403,
    );
  });

  test('refer-a-friend and newsletter programs have the Review page too, naming the referrer with a link', async () => {
    const p = await server().newProgram('referral');
    const ref = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { id: 'ref', key: 'ref-key', email: 'ref@example.com' },
    });
    assert.equal(ref.status, 201, ref.text);
    const friend = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { id: 'friend', email: 'friend@mailinator.com', referring_customer: { id: 'ref' } },
    });
    assert.equal(friend.status, 201, friend.text);
    const flag = friend.body.data.fraud?.flags?.[0] ?? '';
    assert.ok(flag);
    const client = await memberClient(server, p, 'raf@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}`;
    const overview = await client.get(base);
    assert.match(overview.text, new RegExp(`href="${base}/review"`), 'Review is in the menu');
    const page = await client.get(`${base}/review`);
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /Disposable e-mail/);
    assert.match(page.text, /by referring customer <a href="[^"]*\/customers\?q=ref-key">ref-key<\/a>/);
    assert.match(page.text, /rewards, for both sides, stay pending/);
    assert.doesNotMatch(page.text, /archive partner/);
    const cleared = await client.post(`${base}/review/decide`, { one: `clear:${flag}` });
    assert.equal(locationOf(cleared), `${base}/review?done=clear`);
    assert.match((await client.get(`${base}/review?done=clear`)).text, /its rewards were credited/);
    const read = await server().request('GET', `/v1/fraud/flags/${flag}`, { token: p.token });
    assert.equal(read.body.data.status, 'cleared');

    const n = await server().newProgram('newsletter');
    const referrer = await server().request('POST', '/v1/subscribers', {
      token: n.token,
      body: { email: 'lead@example.com' },
    });
    const referred = await server().request('POST', '/v1/subscribers', {
      token: n.token,
      body: { email: 'farm@mailinator.com', referral: { id: String(referrer.body.data.id) } },
    });
    assert.equal(referred.status, 201, referred.text);
    const reader = await memberClient(server, n, 'news@example.com', 'admin');
    const news = await reader.get(`/admin/programs/${n.publicId}/review`);
    assert.equal(news.status, 200, news.text);
    assert.match(
      news.text,
      new RegExp(`by referring subscriber <a href="[^"]*/subscribers\\?q=${referrer.body.data.id}">`),
    );
    assert.match(
      news.text,
      new RegExp(`subscriber <a href="[^"]*/subscribers\\?q=${referred.body.data.id}">`),
    );
  });
});
