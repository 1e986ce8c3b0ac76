import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase } from '../../../test/harness.ts';
import { locationOf } from '../../../test/portal-client.ts';

describeEachDatabase('owner console coupons and promotion codes', (server) => {
  test('a coupon is created, gets a code, is deactivated and its code deleted; bad input is said by field', async () => {
    const p = await server().newProgram('referral');
    const admin = await memberClient(server, p, 'deals@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}/coupons`;
    const bad = await admin.submit(base, {
      name: 'Spring',
      coupon_discount_type: 'percent',
      coupon_discount_amount: '150',
      coupon_duration_type: 'once',
    });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /id="field-coupon_discount_amount-error"/);
    const missing = await admin.post(base, { name: 'Spring', coupon_duration_type: 'once' });
    assert.equal(missing.status, 422);
    assert.match(missing.text, /id="field-coupon_discount_type-error"/);
    assert.equal((await server().request('GET', '/v1/coupons', { token: p.token })).body.data.length, 0);

    const made = await admin.post(base, {
      name: '<script>x()</script>',
      uuid_code: 'spring',
      coupon_discount_type: 'percent',
      coupon_discount_amount: '15',
      coupon_duration_type: 'months',
      coupon_duration_value: '3',
    });
    assert.equal(locationOf(made), `${base}/spring?done=created`);
    const list = await admin.get(base);
    assert.match(list.text, /&lt;script>x\(\)&lt;\/script>/);
    assert.doesNotMatch(list.text, /<script>x/);
    const coupon = `${base}/spring`;

    const badCode = await admin.post(`${coupon}/codes`, { code: 'no spaces', expiration_date_value: 'soon' });
    assert.equal(badCode.status, 422);
    assert.match(badCode.text, /id="field-code-error"/);
    assert.match(badCode.text, /id="field-expiration_date_value-error"/);
    const code = await admin.post(`${coupon}/codes`, { code: 'SPRING15', redemption_times_value: '10' });
    assert.equal(locationOf(code), `${coupon}?done=code-added`);
    const taken = await admin.post(`${coupon}/codes`, { code: 'SPRING15' });
    assert.equal(taken.status, 422);
    assert.match(taken.text, /id="field-code-error"/);
    assert.match((await admin.get(coupon)).text, /SPRING15/);

    const off = await admin.post(`${coupon}/active`, { active: 'no' });
    assert.equal(locationOf(off), `${coupon}?done=deactivated`);
    const stored = await server().request('GET', '/v1/coupons/spring', { token: p.token });
    assert.equal(stored.body.data.active, false);
    const gone = await admin.post(`${coupon}/codes/delete`, { code: 'SPRING15' });
    assert.equal(locationOf(gone), `${coupon}?done=code-deleted`);
    assert.equal(
      (await server().request('GET', '/v1/promotion-codes/SPRING15', { token: p.token })).status,
      404,
    );
    const activity = await server().request('GET', '/v1/activity', { token: p.token });
    assert.deepEqual(activity.body.data.map((entry) => entry.action).slice(0, 4), [
      'promotion_code.delete',
      'coupon.deactivate',
      'promotion_code.create',
      'coupon.create',
    ]);
  });

  test('viewers read coupons without write controls and are refused; another program’s coupon is 404', async () => {
    const p = await server().newProgram('newsletter');
    const created = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: {
        uuid_code: 'welcome',
        coupon_discount_type: 'static',
        coupon_discount_amount: 5,
        coupon_duration_type: 'once',
        promotion_codes: [{ code: 'HELLO5' }],
      },
    });
    assert.equal(created.status, 200, created.text);
    const viewer = await memberClient(server, p, 'peek@example.com', 'viewer');
    const base = `/admin/programs/${p.publicId}/coupons`;
    const list = await viewer.get(base);
    assert.match(list.text, /welcome/);
    assert.doesNotMatch(list.text, /Create coupon/);
    const page = await viewer.get(`${base}/welcome`);
    assert.match(page.text, /HELLO5/);
    assert.doesNotMatch(page.text, /Deactivate|Add code|>Delete</);
    assert.equal((await viewer.post(base, { coupon_discount_type: 'percent' })).status, 403);
    assert.equal((await viewer.post(`${base}/welcome/active`, { active: 'no' })).status, 403);
    assert.equal((await viewer.post(`${base}/welcome/codes/delete`, { code: 'HELLO5' })).status, 403);
    const owner = await memberClient(server, p, 'own@example.com', 'owner');
    assert.equal((await owner.post(`${base}/welcome/active`, { active: 'no', _csrf: 'forged' })).status, 403);
    assert.equal((await owner.post(`${base}/welcome/codes/delete`, { code: 'NOPE' })).status, 404);

    const other = await server().newProgram('newsletter');
    const stranger = await memberClient(server, other, 'away@example.com', 'owner');
    const theirs = `/admin/programs/${other.publicId}/coupons/welcome`;
    assert.equal((await stranger.get(theirs)).status, 404);
    assert.equal((await stranger.post(`${theirs}/active`, { active: 'no' })).status, 404);
  });
});
