import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram } from '../../../test/harness.ts';
import { nowTimestamp } from '../../core/time.ts';

describeEachDatabase('partner referral links', (server) => {
  const setup = async () => {
    const p = await server().newProgram('affiliate', { website: 'https://acme.example/shop' });
    const partner = await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'l@example.com', key: 'main' },
    });
    return { p, partnerId: partner.body.data.id };
  };
  const addLink = (p: TestProgram<'affiliate'>, body: Record<string, unknown>) =>
    server().request('POST', '/v1/partner_referral_links', { token: p.token, body });

  test('add, fetch, list, rename and delete links; the default link stays', async () => {
    const { p, partnerId } = await setup();
    const created = await addLink(p, { key: 'promo', partner: { email: 'l@example.com' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data, {
      id: 'promo',
      key: 'promo',
      url: 'https://acme.example/shop?aff=promo',
      tracking_url: `${server().deps.config.publicUrl ?? 'http://127.0.0.1:8080'}/r/${p.publicId}/promo`,
      default: false,
      is_additional: false,
      direct_tracking: false,
      direct_tracking_redirect: false,
      direct_tracking_redirect_url: null,
    });
    const fetched = await server().request('GET', '/v1/partner_referral_links/promo', { token: p.token });
    assert.deepEqual(fetched.body.data, created.body.data);
    const list = await server().request('GET', `/v1/partners/${partnerId}/referral_links`, {
      token: p.token,
    });
    assert.deepEqual(
      list.body.data.map((l: { key: string; default: boolean }) => [l.key, l.default]),
      [
        ['main', true],
        ['promo', false],
      ],
    );
    const partner = (await server().request('GET', `/v1/partners/${partnerId}`, { token: p.token })).body
      .data;
    assert.deepEqual(partner.referral_links, [
      'https://acme.example/shop?aff=main',
      'https://acme.example/shop?aff=promo',
    ]);
    const renamed = await server().request('PUT', '/v1/partner_referral_links/promo', {
      token: p.token,
      body: { key: 'promo2' },
    });
    assert.equal(renamed.body.data.url, 'https://acme.example/shop?aff=promo2');
    const taken = await server().request('PUT', '/v1/partner_referral_links/promo2', {
      token: p.token,
      body: { key: 'main' },
    });
    assert.deepEqual(taken.error.errors, { key: ['The key has already been taken.'] });
    const refused = await server().request('DELETE', '/v1/partner_referral_links/main', { token: p.token });
    assert.equal(refused.status, 422);
    assert.deepEqual(
      (await server().request('DELETE', '/v1/partner_referral_links/promo2', { token: p.token })).body,
      { status: 1 },
    );
    assert.equal(
      (await server().request('GET', '/v1/partner_referral_links/promo2', { token: p.token })).status,
      404,
    );
    const search = await server().request('GET', '/v1/partner_referral_links:search?partner[key]=main', {
      token: p.token,
    });
    assert.deepEqual(
      search.body.data.map((l: { key: string }) => l.key),
      ['main'],
    );
  });

  test('bad input: duplicate key, unknown partner, unknown domain, domain without is_additional', async () => {
    const { p } = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ key: 'main', partner: { key: 'main' } }, 'key'],
      [{ key: 'x1', partner: { key: 'ghost' } }, 'partner'],
      [{ key: 'x2', partner: { key: 'main' }, domain_id: '999', is_additional: true }, 'domain_id'],
      [{ key: 'x3', partner: { key: 'main' }, domain_id: '999' }, 'is_additional'],
      [{ partner: { key: 'main' } }, 'key'],
    ];
    for (const [body, field] of cases) {
      const res = await addLink(p, body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.error.errors[field], `${field}: ${res.text}`);
    }
    const other = await server().newProgram('affiliate');
    assert.equal(
      (await server().request('GET', '/v1/partner_referral_links/main', { token: other.token })).status,
      404,
    );
  });

  test(':domains lists the website and the additional domains; links on a domain use it', async () => {
    const { p } = await setup();
    const db = server().deps.database.db;
    const domain = await db
      .insertInto('link_domains')
      .values({ program_id: p.id, domain: 'go.acme.example', created_at: nowTimestamp(server().deps.clock) })
      .returning('id')
      .executeTakeFirstOrThrow();
    const res = await server().request('GET', '/v1/partner_referral_links:domains', { token: p.token });
    assert.deepEqual(res.body, {
      data: [
        { id: null, domain: 'acme.example', url: 'https://acme.example/shop', is_additional: false },
        {
          id: String(domain.id),
          domain: 'go.acme.example',
          url: 'https://go.acme.example',
          is_additional: true,
        },
      ],
      status: 1,
    });
    const link = await addLink(p, {
      key: 'short',
      partner: { key: 'main' },
      domain_id: String(domain.id),
      is_additional: true,
    });
    assert.equal(link.status, 201, link.text);
    assert.equal(link.body.data.url, 'https://go.acme.example?aff=short');
    assert.equal(link.body.data.is_additional, true);
  });

  test('a customer signed up through options.referral_url counts for that link', async () => {
    const { p, partnerId } = await setup();
    await addLink(p, { key: 'promo', partner: { key: 'main' } });
    const res = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: {
        key: 'c1',
        partner: { key: 'main' },
        options: { referral_url: 'https://acme.example/shop?aff=promo' },
      },
    });
    assert.equal(res.status, 201, res.text);
    const row = await server()
      .deps.database.db.selectFrom('customers')
      .innerJoin('referral_links', 'referral_links.id', 'customers.referral_link_id')
      .select('referral_links.key')
      .where('customers.program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.key, 'promo');
    const byLinkKey = await server().request('GET', '/v1/partners/promo', { token: p.token });
    assert.equal(byLinkKey.body.data.id, partnerId);
  });
});
