import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from './harness.ts';

/**
 * One boolean rule for every BooleanLike field (core/booleans.ts): `true`, `"true"` and `1` are
 * true; `false`, `"false"` and `0` are false; anything else is a 422 on the field.
 */
const truthy = [true, 'true', 1] as const;
const falsy = [false, 'false', 0] as const;
const refused = ['yes', 'on', 2] as const;

describeEachDatabase('the boolean rule', (server) => {
  test('webhook is_active on create and update; absent keeps the default (active)', async () => {
    const p = await server().newProgram('affiliate');
    const create = (extra: Record<string, unknown>) =>
      server().request('POST', '/v1/webhooks', {
        token: p.token,
        body: { name: 'Hook', url: 'https://hooks.example.com/x', events: ['partner.created'], ...extra },
      });
    for (const value of truthy) assert.equal((await create({ is_active: value })).body.data.is_active, true);
    for (const value of falsy) assert.equal((await create({ is_active: value })).body.data.is_active, false);
    const plain = await create({});
    assert.equal(plain.body.data.is_active, true);
    for (const value of refused) {
      const res = await create({ is_active: value });
      assert.equal(res.status, 422, `${String(value)}: ${res.text}`);
      assert.ok(res.error.errors.is_active, res.text);
    }
    const key = plain.body.data.key;
    const update = (body: Record<string, unknown>) =>
      server().request('PUT', `/v1/webhooks/${key}`, { token: p.token, body });
    for (const value of falsy) {
      assert.equal((await update({ is_active: value })).body.data.is_active, false, String(value));
      assert.equal((await update({ update: { is_active: true } })).body.data.is_active, true);
    }
    assert.equal((await update({ name: 'Renamed' })).body.data.is_active, true);
  });

  test('partner link is_additional', async () => {
    const p = await server().newProgram('affiliate');
    const partner = await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'b@example.com', key: 'bp' },
    });
    assert.equal(partner.status, 201, partner.text);
    let n = 0;
    const add = (is_additional: unknown) =>
      server().request('POST', '/v1/partner_referral_links', {
        token: p.token,
        body: { key: `l${++n}`, partner: { key: 'bp' }, is_additional },
      });
    for (const value of truthy) {
      const res = await add(value);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.is_additional, true, String(value));
    }
    for (const value of falsy) assert.equal((await add(value)).body.data.is_additional, false, String(value));
    for (const value of refused) {
      const res = await add(value);
      assert.equal(res.status, 422, `${String(value)}: ${res.text}`);
      assert.ok(res.error.errors.is_additional, res.text);
    }
  });
});
