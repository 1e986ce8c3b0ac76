import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase } from '../../../test/harness.ts';
import { locationOf } from '../../../test/portal-client.ts';

describeEachDatabase('owner console rewards, second tier and product commissions', (server) => {
  test('a refer-a-friend program’s rewards are changed, turned off, and refused out of range by field', async () => {
    const p = await server().newProgram('referral');
    const admin = await memberClient(server, p, 'friends@example.com', 'admin');
    const page = `/admin/programs/${p.publicId}/rewards`;
    const shown = await admin.get(page);
    assert.equal(shown.status, 200, shown.text);
    const fields = {
      'referrer_reward.on': 'yes',
      'referrer_reward.type': 'fixed',
      'referrer_reward.value': '0',
      'referrer_reward.is_currency': 'yes',
      'referrer_reward.amount_units': 'EUR',
      'referrer_reward.trigger': 'every_purchase',
      'referrer_reward.limit': '3',
    };
    const bad = await admin.post(page, fields);
    assert.equal(bad.status, 422);
    assert.match(bad.text, /id="field-referrer_reward.value-error"/);
    const before = await server().request('GET', '/v1/program', { token: p.token });
    assert.notEqual(before.body.data.program.program_settings.referred_reward, null, 'nothing written');

    const saved = await admin.post(page, { ...fields, 'referrer_reward.value': '7.5' });
    assert.equal(locationOf(saved), `${page}?saved=1`);
    const after = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program
      .program_settings;
    assert.deepEqual(after.referrer_reward, {
      type: 'fixed',
      value: 7.5,
      is_currency: true,
      amount_units: 'EUR',
      trigger: 'every_purchase',
      limit: 3,
    });
    assert.equal(after.referred_reward, null, 'the friend’s side left unticked is off');
    const activity = await server().request('GET', '/v1/activity', { token: p.token });
    assert.equal(activity.body.data[0]?.action, 'settings.update');

    const viewer = await memberClient(server, p, 'watch@example.com', 'viewer');
    const watched = await viewer.get(page);
    assert.doesNotMatch(watched.text, /Save rewards/);
    assert.match(watched.text, /<fieldset class="card" disabled/, 'the fields are shown, not editable');
    assert.equal((await viewer.post(page, fields)).status, 403);
    assert.equal((await admin.post(page, { ...fields, _csrf: 'forged' })).status, 403);
    const shop = await server().newProgram('affiliate');
    const seller = await memberClient(server, shop, 'seller@example.com', 'owner');
    assert.equal((await seller.get(`/admin/programs/${shop.publicId}/rewards`)).status, 404);
  });

  test('an affiliate program’s second tier and product commissions are set and removed; bad values by field', async () => {
    const p = await server().newProgram('affiliate');
    const admin = await memberClient(server, p, 'rules@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}/settings/commissions`;
    assert.match((await admin.get(`/admin/programs/${p.publicId}/settings`)).text, /settings\/commissions/);
    const bad = await admin.submit(`${base}/tier2`, { 'tier2.type': 'percent', 'tier2.value': 'lots' }, base);
    assert.equal(bad.status, 422);
    assert.match(bad.text, /id="field-tier2.value-error"/);
    const tier2 = await admin.post(`${base}/tier2`, { 'tier2.type': 'percent', 'tier2.value': '5' });
    assert.equal(locationOf(tier2), `${base}?saved=1`);
    const badProduct = await admin.post(`${base}/products`, {
      product_id: 'pro',
      type: 'fixed',
      value: '-1',
    });
    assert.equal(badProduct.status, 422);
    assert.match(badProduct.text, /id="field-value-error"/);
    const product = await admin.post(`${base}/products`, {
      product_id: '<i>pro</i>',
      type: 'fixed',
      value: '12',
    });
    assert.equal(locationOf(product), `${base}?saved=1`);
    const listed = await admin.get(base);
    assert.match(listed.text, /&lt;i>pro&lt;\/i>/);
    let settings = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program
      .program_settings;
    assert.deepEqual(settings.tier2_commission, { type: 'percent', value: 5 });
    assert.deepEqual(settings.product_commissions, [{ product_id: '<i>pro</i>', type: 'fixed', value: 12 }]);

    assert.equal((await admin.post(`${base}/products/remove`, { index: '4' })).status, 404);
    const removed = await admin.post(`${base}/products/remove`, { index: '0' });
    assert.equal(locationOf(removed), `${base}?saved=1`);
    await admin.post(`${base}/tier2`, { 'tier2.type': '', 'tier2.value': '' });
    settings = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program
      .program_settings;
    assert.deepEqual(settings.product_commissions, []);
    assert.equal(settings.tier2_commission, null);

    const viewer = await memberClient(server, p, 'eyes@example.com', 'viewer');
    const seen = await viewer.get(base);
    assert.doesNotMatch(seen.text, /Save second tier|Add product commission/);
    assert.match(seen.text, /<fieldset class="card" disabled/);
    assert.equal((await viewer.post(`${base}/tier2`, { 'tier2.type': '' })).status, 403);
    assert.equal((await viewer.post(`${base}/products`, { type: 'fixed', value: '1' })).status, 403);
    const friends = await server().newProgram('referral');
    const host = await memberClient(server, friends, 'host@example.com', 'owner');
    assert.equal((await host.get(`/admin/programs/${friends.publicId}/settings/commissions`)).status, 404);
  });
});
