import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase } from '../../../test/harness.ts';
import { locationOf } from '../../../test/portal-client.ts';
import { startReceiver } from '../webhooks/webhooks.test-receiver.ts';

let receiver: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  receiver = await startReceiver(200);
});
after(() => receiver.close());

describeEachDatabase('owner console webhooks', (server) => {
  test('a webhook is added, a test event is delivered signed and shows in the log, and can be redelivered', async () => {
    const p = await server().newProgram('affiliate');
    const client = await memberClient(server, p, 'hooks@example.com', 'admin');
    const base = `/admin/programs/${p.publicId}/webhooks`;
    const noEvents = await client.submit(base, { name: 'CRM', url: receiver.url, active: 'yes' });
    assert.equal(noEvents.status, 422);
    assert.match(noEvents.text, /id="field-events-error">The events field is required/);
    const badUrl = await client.submit(base, {
      name: 'CRM',
      url: 'ftp://nope',
      active: 'yes',
      events: 'partner.created',
    });
    assert.equal(badUrl.status, 422);
    assert.match(badUrl.text, /id="field-url-error">The url field must be a valid URL/);

    const added = await client.submit(base, {
      name: 'CRM',
      url: receiver.url,
      active: 'yes',
      events: 'partner.created',
    });
    assert.equal(added.status, 303, added.text);
    const page = locationOf(added).replace(/\?.*$/, '');
    const detail = await client.get(locationOf(added));
    assert.match(detail.text, /The webhook was added/);
    const secret = /id="signing-secret" type="url" readonly value="([^"]+)"/.exec(detail.text)?.[1] ?? '';
    assert.ok(secret);

    const before = receiver.received.length;
    const sent = await client.post(`${page}/test`);
    assert.equal(sent.status, 200);
    assert.match(sent.text, /Delivered: the endpoint answered 200/);
    const delivery = receiver.received[before];
    assert.ok(delivery);
    // The receiver checks the Standard Webhooks signature with its own library.
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
        name,
        String(delivery.headers[name]),
      ]),
    );
    assert.doesNotThrow(() =>
      new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`).verify(delivery.body, headers),
    );

    const log = await client.get(page);
    assert.match(log.text, /partner\.created<span class="muted"> \(test\)/);
    const deliveryId = /name="delivery" value="([^"]+)"/.exec(log.text)?.[1] ?? '';
    const again = await client.post(`${page}/redeliver`, { delivery: deliveryId });
    assert.match(again.text, /Delivered/);
    assert.equal(receiver.received.length, before + 2);
    assert.equal((again.text.match(/\(test\)/g) ?? []).length, 2, 'two attempts in the log');
  });

  test('a viewer reads webhooks without write controls; another program’s webhook is not found', async () => {
    const p = await server().newProgram('affiliate');
    const made = await server().request('POST', '/v1/webhooks', {
      token: p.token,
      body: { key: 'crm', name: 'CRM', url: receiver.url, events: ['partner.created'] },
    });
    assert.equal(made.status, 200, made.text);
    const viewer = await memberClient(server, p, 'readhooks@example.com', 'viewer');
    const page = await viewer.get(`/admin/programs/${p.publicId}/webhooks/crm`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /Send test event|Save webhook|Signing secret/);
    assert.equal((await viewer.post(`/admin/programs/${p.publicId}/webhooks/crm/test`)).status, 403);
    const other = await server().newProgram('affiliate');
    const stranger = await memberClient(server, other, 'strangerhooks@example.com', 'admin');
    assert.equal((await stranger.get(`/admin/programs/${other.publicId}/webhooks/crm`)).status, 404);
  });
});
