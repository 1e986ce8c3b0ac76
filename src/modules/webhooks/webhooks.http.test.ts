import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnswerOf, describeEachDatabase } from '../../../test/harness.ts';

const hook = (overrides: Record<string, unknown> = {}) => ({
  name: 'Orders',
  url: 'https://hooks.example.com/vouch',
  events: ['transaction.created', 'partner.created'],
  ...overrides,
});

describeEachDatabase('webhooks API', (server) => {
  test('POST creates a webhook with a generated key and a fresh signature; GET and list show it', async () => {
    const p = await server().newProgram('affiliate');
    const created = await server().request('POST', '/v1/webhooks', { token: p.token, body: hook() });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.headers.get('content-type'), 'application/json');
    const data = created.body.data;
    assert.match(data.key, /^[A-Za-z0-9]{12}$/);
    assert.equal(data.is_active, true);
    assert.ok((data.signature ?? '').length >= 16);
    assert.deepEqual(data.events, ['transaction.created', 'partner.created']);
    assert.deepEqual(Object.keys(data).sort(), ['events', 'is_active', 'key', 'name', 'signature', 'url']);

    const other = await server().request('POST', '/v1/webhooks', { token: p.token, body: hook() });
    assert.notEqual(other.body.data.signature, data.signature);

    const fetched = await server().request('GET', `/v1/webhooks/${data.key}`, { token: p.token });
    assert.deepEqual(fetched.body, { data, status: 1 });

    const list = await server().request('GET', '/v1/webhooks', { token: p.token });
    assert.equal(list.status, 200);
    assert.equal(list.body.meta.per_page, 10);
    assert.deepEqual(
      list.body.data.map((w: { key: string }) => w.key),
      [other.body.data.key, data.key],
    );
    const asc = await server().request('GET', '/v1/webhooks?sort=asc&limit=10', { token: p.token });
    assert.equal(asc.body.data[0]?.key, data.key);
  });

  test('a given key is kept, and is unique per program', async () => {
    const p = await server().newProgram('referral');
    const q = await server().newProgram('referral');
    const body = hook({ key: 'orders-hook', events: ['customer.created'] });
    const first = await server().request('POST', '/v1/webhooks', { token: p.token, body });
    assert.equal(first.body.data.key, 'orders-hook');
    const again = await server().request('POST', '/v1/webhooks', { token: p.token, body });
    assert.equal(again.status, 422);
    assert.deepEqual(again.error.errors, { key: ['The key has already been taken.'] });
    const elsewhere = await server().request('POST', '/v1/webhooks', { token: q.token, body });
    assert.equal(elsewhere.status, 200);
  });

  test('validation: required fields, lengths, URL, and events the program type can produce', async () => {
    const p = await server().newProgram('referral');
    const missing = await server().request('POST', '/v1/webhooks', { token: p.token, body: {} });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.error.errors, {
      name: ['The name field is required.'],
      url: ['The url field is required.'],
      events: ['The events field is required.'],
    });
    assert.equal(missing.error.message, 'The name field is required. (and 2 more errors)');

    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ events: [] }, { events: ['The events field is required.'] }],
      [{ events: ['partner.created'] }, { 'events.0': ['The selected events.0 is invalid.'] }],
      [
        { events: ['customer.created', 'nope', 'subscriber.created'] },
        {
          'events.1': ['The selected events.1 is invalid.'],
          'events.2': ['The selected events.2 is invalid.'],
        },
      ],
      [{ url: 'ftp://x.example.com' }, { url: ['The url field must be a valid URL.'] }],
      [
        { url: `https://x.example.com/${'a'.repeat(2048)}` },
        { url: ['The url field must not be greater than 2048 characters.'] },
      ],
      [{ name: 'n'.repeat(256) }, { name: ['The name field must not be greater than 255 characters.'] }],
      [{ is_active: 'maybe' }, { is_active: ['The is active field must be true or false.'] }],
    ];
    for (const [override, errors] of cases) {
      const reply = await server().request('POST', '/v1/webhooks', {
        token: p.token,
        body: hook({ events: ['customer.created'], ...override }),
      });
      assert.equal(reply.status, 422, JSON.stringify(override));
      assert.deepEqual(reply.error.errors, errors, JSON.stringify(override));
    }

    const newsletter = await server().newProgram('newsletter');
    const ok = await server().request('POST', '/v1/webhooks', {
      token: newsletter.token,
      body: hook({ events: ['subscriber.created'], key: null, is_active: '' }),
    });
    assert.equal(ok.status, 200, ok.text);
    const affiliate = await server().newProgram('affiliate');
    const leads = await server().request('POST', '/v1/webhooks', {
      token: affiliate.token,
      body: hook({ events: ['lead.created', 'customer.deleted'] }),
    });
    assert.equal(leads.status, 200, leads.text);
  });

  test('a URL whose host is a blocked IP literal is refused; allowed ranges and names pass', async () => {
    const p = await server().newProgram('affiliate');
    for (const url of [
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[::ffff:192.168.1.1]/hook',
      'http://0xa9.0xfe.0xa9.0xfe/',
    ]) {
      const reply = await server().request('POST', '/v1/webhooks', { token: p.token, body: hook({ url }) });
      assert.equal(reply.status, 422, url);
      assert.deepEqual(Object.keys(reply.error.errors), ['url'], url);
    }
    // The test servers allow 127.0.0.0/8 (WEBHOOK_ALLOW_CIDRS).
    for (const url of ['http://127.0.0.1:8080/hook', 'http://8.8.8.8/hook', 'http://localhost/hook']) {
      const reply = await server().request('POST', '/v1/webhooks', { token: p.token, body: hook({ url }) });
      assert.equal(reply.status, 200, url);
    }
  });

  test('PUT updates only the given fields, flat or wrapped in "update"', async () => {
    const p = await server().newProgram('affiliate');
    const created = (await server().request('POST', '/v1/webhooks', { token: p.token, body: hook() })).body
      .data;
    const flat = await server().request('PUT', `/v1/webhooks/${created.key}`, {
      token: p.token,
      body: { is_active: false, name: null },
    });
    assert.equal(flat.status, 200, flat.text);
    assert.deepEqual(flat.body.data, { ...created, is_active: false });

    const wrapped = await server().request('PUT', `/v1/webhooks/${created.key}`, {
      token: p.token,
      body: { update: { name: 'Renamed', events: ['lead.converted'], url: 'https://other.example.com/' } },
    });
    assert.equal(wrapped.status, 200, wrapped.text);
    assert.deepEqual(wrapped.body.data, {
      ...created,
      is_active: false,
      name: 'Renamed',
      events: ['lead.converted'],
      url: 'https://other.example.com/',
    });

    const bad = await server().request('PUT', `/v1/webhooks/${created.key}`, {
      token: p.token,
      body: { update: { events: ['subscriber.created'] } },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.error.errors, { 'events.0': ['The selected events.0 is invalid.'] });
    const blocked = await server().request('PUT', `/v1/webhooks/${created.key}`, {
      token: p.token,
      body: { url: 'http://192.168.0.10/' },
    });
    assert.equal(blocked.status, 422);
  });

  test('DELETE removes the webhook; it then answers 404', async () => {
    const p = await server().newProgram('newsletter');
    const created = (
      await server().request('POST', '/v1/webhooks', {
        token: p.token,
        body: hook({ events: ['subscriber.deleted'] }),
      })
    ).body.data;
    const deleted = await server().request('DELETE', `/v1/webhooks/${created.key}`, { token: p.token });
    assert.deepEqual(deleted.body, { status: 1 });
    const gone = await server().request('GET', `/v1/webhooks/${created.key}`, { token: p.token });
    assert.equal(gone.status, 404);
    assert.equal(gone.error.message, 'Webhook not found.');
    const again = await server().request('DELETE', `/v1/webhooks/${created.key}`, { token: p.token });
    assert.equal(again.status, 404);
  });

  test('the list pages by limit 10–100 and follows next links', async () => {
    const p = await server().newProgram('affiliate');
    for (let i = 0; i < 12; i++) {
      await server().request('POST', '/v1/webhooks', { token: p.token, body: hook({ name: `h${i}` }) });
    }
    const first = await server().request('GET', '/v1/webhooks', { token: p.token });
    assert.equal(first.body.data.length, 10);
    const nextUrl = new URL(first.body.links.next ?? '');
    const next = await server().request<AnswerOf<'GET', '/v1/webhooks'>>(
      'GET',
      nextUrl.pathname + nextUrl.search,
      { token: p.token },
    );
    assert.equal(next.body.data.length, 2);
    assert.equal(next.body.links.next, null);
    const small = await server().request('GET', '/v1/webhooks?limit=5', { token: p.token });
    assert.equal(small.status, 422);
    assert.deepEqual(small.error.errors, { limit: ['The limit field must be between 10 and 100.'] });
  });
});
