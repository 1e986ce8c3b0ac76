import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase } from '../../../test/harness.ts';
import { locationOf } from '../../../test/portal-client.ts';

describeEachDatabase('owner console subscribers and milestones', (server) => {
  test('subscribers are listed and searched; a milestone is added (bad input by field) and deleted', async () => {
    const p = await server().newProgram('newsletter');
    for (const [email, name] of [
      ['ada@example.com', '<script>ada()</script>'],
      ['bob@example.com', 'Bob'],
    ] as const) {
      const made = await server().request('POST', '/v1/subscribers', {
        token: p.token,
        body: { email, name },
      });
      assert.equal(made.status, 201, made.text);
    }
    const admin = await memberClient(server, p, 'letters@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}`;
    const all = await admin.get(`${base}/subscribers`);
    assert.equal(all.status, 200, all.text);
    assert.match(all.text, /&lt;script>ada\(\)&lt;\/script>/);
    assert.doesNotMatch(all.text, /<script>ada/);
    assert.ok(all.text.indexOf('bob@example.com') < all.text.indexOf('ada@example.com'), 'newest first');
    const found = await admin.get(`${base}/subscribers?q=bob@example.com`);
    assert.match(found.text, /bob@example\.com/);
    assert.doesNotMatch(found.text, /ada@example\.com/);

    const milestones = `${base}/milestones`;
    const bad = await admin.submit(milestones, { name: '', subscribers_count: 'many' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /id="field-name-error"/);
    const badCount = await admin.post(milestones, { name: 'Stickers', subscribers_count: '0' });
    assert.equal(badCount.status, 422);
    assert.match(badCount.text, /id="field-subscribers_count-error"/);
    assert.equal((await server().request('GET', '/v1/rewards', { token: p.token })).body.data.length, 0);
    const added = await admin.post(milestones, {
      name: '<b>Stickers</b>',
      subscribers_count: '3',
      fulfillment_type: 'url_link',
      fulfillment_value: 'https://example.com/stickers',
    });
    assert.equal(locationOf(added), `${milestones}?done=added`);
    const page = await admin.get(milestones);
    assert.match(page.text, /&lt;b>Stickers&lt;\/b>/);
    const id = String((await server().request('GET', '/v1/rewards', { token: p.token })).body.data[0]?.id);
    const deleted = await admin.post(`${milestones}/delete`, { id });
    assert.equal(locationOf(deleted), `${milestones}?done=deleted`);
    assert.equal((await server().request('GET', '/v1/rewards', { token: p.token })).body.data.length, 0);
    assert.equal((await admin.post(`${milestones}/delete`, { id })).status, 404);
    const activity = await server().request('GET', '/v1/activity', { token: p.token });
    assert.deepEqual(activity.body.data.map((entry) => entry.action).slice(0, 2), [
      'reward.delete',
      'reward.create',
    ]);
  });

  test('viewers see no milestone controls and are refused; other programs’ ids and types 404', async () => {
    const p = await server().newProgram('newsletter');
    const reward = await server().request('POST', '/v1/rewards', {
      token: p.token,
      body: { name: 'Mug', subscribers_count: 5 },
    });
    assert.equal(reward.status, 201, reward.text);
    const id = String(reward.body.data.id);
    const viewer = await memberClient(server, p, 'reader@example.com', 'viewer');
    const milestones = `/admin/programs/${p.publicId}/milestones`;
    const page = await viewer.get(milestones);
    assert.match(page.text, /Mug/);
    assert.doesNotMatch(page.text, /Add milestone|>Delete</);
    assert.equal((await viewer.post(milestones, { name: 'X', subscribers_count: '1' })).status, 403);
    assert.equal((await viewer.post(`${milestones}/delete`, { id })).status, 403);
    const owner = await memberClient(server, p, 'chief@example.com', 'owner');
    await owner.get(milestones);
    assert.equal((await owner.post(`${milestones}/delete`, { id, _csrf: 'forged' })).status, 403);

    const other = await server().newProgram('newsletter');
    const stranger = await memberClient(server, other, 'far@example.com', 'owner');
    await stranger.get(`/admin/programs/${other.publicId}/milestones`);
    assert.equal(
      (await stranger.post(`/admin/programs/${other.publicId}/milestones/delete`, { id })).status,
      404,
    );
    const shop = await server().newProgram('affiliate');
    const seller = await memberClient(server, shop, 'shop@example.com', 'owner');
    assert.equal((await seller.get(`/admin/programs/${shop.publicId}/subscribers`)).status, 404);
    assert.equal((await seller.get(`/admin/programs/${shop.publicId}/milestones`)).status, 404);
  });
});
