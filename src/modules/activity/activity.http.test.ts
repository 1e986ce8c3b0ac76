import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient, settingsFormFields } from '../../../test/console.ts';
import { describeEachDatabase } from '../../../test/harness.ts';

describeEachDatabase('activity log', (server) => {
  test("an API key's successful writes are logged with the key's name; reads and refusals are not", async () => {
    const p = await server().newProgram('affiliate');
    const key = await server().admin('POST', `/admin/v1/programs/${p.publicId}/api-keys`, {
      name: 'Billing sync',
    });
    const token = key.body.data.token;
    const made = await server().request('POST', '/v1/partners', { token, body: { email: 'a@example.com' } });
    assert.equal(made.status, 201, made.text);
    await server().request('POST', `/v1/partners/${made.body.data.id}/approve`, { token });
    await server().request('GET', '/v1/partners', { token });
    const refused = await server().request('POST', '/v1/partners', {
      token,
      body: { email: 'not an e-mail' },
    });
    assert.equal(refused.status, 422);

    const log = await server().request('GET', '/v1/activity', { token: p.token });
    assert.equal(log.status, 200, log.text);
    assert.deepEqual(
      log.body.data.map((e) => [e.actor.kind, e.actor.name, e.action, e.subject]),
      [
        ['key', 'Billing sync', 'POST /v1/partners/:id/approve', made.body.data.id],
        ['key', 'Billing sync', 'POST /v1/partners', null],
      ],
    );
    assert.equal(log.body.data[0]?.address, '127.0.0.1');

    const other = await server().newProgram('affiliate');
    assert.deepEqual((await server().request('GET', '/v1/activity', { token: other.token })).body.data, []);
  });

  test('a console write is logged with the user, the fields changed before → after and the address', async () => {
    const p = await server().newProgram('affiliate');
    const client = await memberClient(server, p, 'editor@example.com', 'admin');
    const path = `/admin/programs/${p.publicId}/settings`;
    const fields = settingsFormFields((await client.get(path)).text);
    const saved = await client.post(path, { ...fields, 'program_settings.cookie_lifetime': '90' });
    assert.equal(saved.status, 303, saved.text);

    const log = await server().request('GET', '/v1/activity', { token: p.token });
    const [entry] = log.body.data;
    assert.equal(entry?.actor.kind, 'user');
    assert.equal(entry?.actor.name, 'editor@example.com');
    assert.equal(entry?.action, 'settings.update');
    assert.deepEqual(entry?.changes, { 'program_settings.cookie_lifetime': { before: '60', after: '90' } });
    assert.equal(entry?.address, '127.0.0.1');

    const activity = await client.get(`/admin/programs/${p.publicId}/activity`);
    assert.equal(activity.status, 200);
    assert.match(activity.text, /program_settings\.cookie_lifetime: 60 → 90/);
  });

  test("a console write made while an API key's write waits for its batch is listed after it, as made", async () => {
    const p = await server().newProgram('affiliate');
    const client = await memberClient(server, p, 'batch-editor@example.com', 'admin');
    const path = `/admin/programs/${p.publicId}/settings`;
    const fields = settingsFormFields((await client.get(path)).text);
    // The key's write is stored with its batch, up to half a second later; the console's at once.
    const made = await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'first@example.com' },
    });
    assert.equal(made.status, 201, made.text);
    const saved = await client.post(path, { ...fields, 'program_settings.cookie_lifetime': '90' });
    assert.equal(saved.status, 303, saved.text);

    const log = await server().request('GET', '/v1/activity', { token: p.token });
    assert.deepEqual(
      log.body.data.map((e) => e.action),
      ['settings.update', 'POST /v1/partners'],
    );
  });
});
