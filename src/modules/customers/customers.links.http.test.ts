import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnswerOf, describeEachDatabase, type TestProgram } from '../../../test/harness.ts';

describeEachDatabase('customer referral links', (server) => {
  const call = <const M extends string, const P extends string>(
    p: TestProgram<'referral'>,
    method: M,
    path: P,
    body?: unknown,
  ) => server().request(method, path, { token: p.token, body });

  async function setup() {
    const p = await server().newProgram('referral', { website: 'https://friends.example' });
    await call(p, 'POST', '/v1/customers', { id: 'c1', key: 'c1-key', email: 'c1@example.com' });
    await call(p, 'POST', '/v1/customers', { id: 'c2', key: 'c2-key', email: 'c2@example.com' });
    return p;
  }

  test('every customer has a default link whose key is its key', async () => {
    const p = await setup();
    const res = await call(p, 'GET', '/v1/customer_referral_links/c1-key');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, {
      id: 'c1-key',
      key: 'c1-key',
      url: 'https://friends.example?ref=c1-key',
      tracking_url: `http://127.0.0.1:8080/r/${p.publicId}/c1-key`,
      default: true,
      is_additional: false,
      direct_tracking: false,
      direct_tracking_redirect: false,
      direct_tracking_redirect_url: null,
    });
  });

  test('create by customer id, key or email; the customer lists its links, default first', async () => {
    const p = await setup();
    for (const [key, customer] of [
      ['promo-a', { id: 'c1' }],
      ['promo-b', { key: 'c1-key' }],
      ['promo-c', { email: 'c1@example.com' }],
    ] as const) {
      const res = await call(p, 'POST', '/v1/customer_referral_links', { key, customer });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.url, `https://friends.example?ref=${key}`);
      assert.equal(res.body.data.default, false);
    }
    const links = await call(p, 'GET', '/v1/customers/c1/referral_links');
    assert.deepEqual(
      links.body.data.map((l) => l.key),
      ['c1-key', 'promo-a', 'promo-b', 'promo-c'],
    );
    const customer = await call(p, 'GET', '/v1/customers/c1');
    assert.equal(customer.body.data.referral_links.length, 4);
    assert.equal(customer.body.data.referral_link, 'https://friends.example?ref=c1-key');
  });

  const bad: [string, unknown, string][] = [
    ['a taken key', { key: 'c2-key', customer: { id: 'c1' } }, 'key'],
    ['no key', { customer: { id: 'c1' } }, 'key'],
    ['no customer', { key: 'x1' }, 'customer'],
    ['an empty customer', { key: 'x1', customer: {} }, 'customer.id'],
    ['an unknown customer', { key: 'x1', customer: { id: 'nobody' } }, 'customer'],
  ];
  for (const [name, body, field] of bad) {
    test(`create rejects ${name} with 422 on ${field}`, async () => {
      const p = await setup();
      const res = await call(p, 'POST', '/v1/customer_referral_links', body);
      assert.equal(res.status, 422, res.text);
      assert.ok(res.error.errors[field], JSON.stringify(res.error.errors));
    });
  }

  test(':search by id, key and customer[id|key|email], from the query or a GET body', async () => {
    const p = await setup();
    await call(p, 'POST', '/v1/customer_referral_links', { key: 'extra', customer: { id: 'c2' } });
    const keys = async (query: string, body?: unknown) =>
      (
        await server().request<AnswerOf<'GET', '/v1/customer_referral_links:search', 'referral'>>(
          'GET',
          `/v1/customer_referral_links:search${query}`,
          { token: p.token, body },
        )
      ).body.data.map((l) => l.key);
    assert.deepEqual(await keys('?id=extra'), ['extra']);
    assert.deepEqual(await keys('?key=c1-key'), ['c1-key']);
    assert.deepEqual(await keys('?customer[id]=c2&sort=asc'), ['c2-key', 'extra']);
    assert.deepEqual(await keys('?customer[email]=c1%40example.com'), ['c1-key']);
    assert.deepEqual(await keys('', { customer: { key: 'c2-key' }, sort: 'asc' }), ['c2-key', 'extra']);
    assert.deepEqual(await keys('?customer[id]=nobody'), []);
  });

  test("renaming a link; renaming the default link renames the customer's key", async () => {
    const p = await setup();
    await call(p, 'POST', '/v1/customer_referral_links', { key: 'old', customer: { id: 'c1' } });
    const renamed = await call(p, 'PUT', '/v1/customer_referral_links/old', { key: 'new' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.data.id, 'new');
    assert.equal((await call(p, 'GET', '/v1/customer_referral_links/old')).status, 404);
    const taken = await call(p, 'PUT', '/v1/customer_referral_links/new', { key: 'c2-key' });
    assert.equal(taken.status, 422);
    assert.deepEqual(taken.error.errors, { key: ['The key has already been taken.'] });
    const def = await call(p, 'PUT', '/v1/customer_referral_links/c1-key', { key: 'c1-renamed' });
    assert.equal(def.status, 200, def.text);
    assert.equal((await call(p, 'GET', '/v1/customers/c1')).body.data.key, 'c1-renamed');
  });

  test('delete removes a link, never the default one', async () => {
    const p = await setup();
    await call(p, 'POST', '/v1/customer_referral_links', { key: 'gone', customer: { id: 'c1' } });
    assert.deepEqual((await call(p, 'DELETE', '/v1/customer_referral_links/gone')).body, { status: 1 });
    assert.equal((await call(p, 'GET', '/v1/customer_referral_links/gone')).status, 404);
    const def = await call(p, 'DELETE', '/v1/customer_referral_links/c1-key');
    assert.equal(def.status, 422);
    assert.equal((await call(p, 'DELETE', '/v1/customer_referral_links/gone')).status, 404);
  });

  test("another program's link or customer answers 404", async () => {
    await setup();
    const other = await server().newProgram('referral');
    assert.equal((await call(other, 'GET', '/v1/customer_referral_links/c1-key')).status, 404);
    assert.equal((await call(other, 'GET', '/v1/customers/c1/referral_links')).status, 404);
    assert.equal(
      (await call(other, 'PUT', '/v1/customer_referral_links/c1-key', { key: 'mine' })).status,
      404,
    );
  });
});
