import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';

describeEachDatabase('partners', (server) => {
  const create = async (token: string, body: Record<string, unknown>) =>
    server().request('POST', '/v1/partners', { token, body });

  test('create answers 201 with the partner, its default link and tags; password never shown', async () => {
    const p = await server().newProgram('affiliate', { website: 'https://acme.example' });
    const res = await create(p.token, {
      email: 'ann@example.com',
      name: 'Ann',
      surname: 'Lee',
      key: 'ann',
      password: 'Secret123',
      tags: ['vip', 'eu'],
    });
    assert.equal(res.status, 201, res.text);
    const data = res.body.data;
    assert.equal(res.body.status, 1);
    assert.match(data.id, /^[A-Za-z0-9]{12}$/);
    assert.deepEqual(
      {
        email: data.email,
        name: data.name,
        surname: data.surname,
        status: data.status,
        approved: data.approved,
        tos: data.tos,
        referrals_count: data.referrals_count,
        tags: data.tags,
        referral_link: data.referral_link,
        referral_links: data.referral_links,
        custom_fields: data.custom_fields,
      },
      {
        email: 'ann@example.com',
        name: 'Ann',
        surname: 'Lee',
        status: 'active',
        approved: true,
        tos: false,
        referrals_count: 0,
        tags: [{ value: 'vip' }, { value: 'eu' }],
        referral_link: 'https://acme.example?aff=ann',
        referral_links: ['https://acme.example?aff=ann'],
        custom_fields: [],
      },
    );
    assert.equal(data.password, undefined);
    assert.equal(data.password_hash, undefined);
  });
});
