import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient } from '../../../test/console.ts';
import { describeEachDatabase } from '../../../test/harness.ts';

describeEachDatabase('owner console API keys', (server) => {
  test('an owner creates a key whose token is shown once and works, then revokes it', async () => {
    const p = await server().newProgram('affiliate', { name: 'Keyed' });
    const owner = await memberClient(server, p, 'keys@example.com', 'owner');
    const base = `/admin/programs/${p.publicId}/keys`;
    const unnamed = await owner.submit(base, { name: '', scope: 'read' });
    assert.equal(unnamed.status, 422);
    assert.match(unnamed.text, /Name the key/);

    const created = await owner.submit(base, { name: 'Reporting', scope: 'read' });
    assert.equal(created.status, 200);
    const token = /value="(vk_[A-Za-z0-9]{12}_[A-Za-z0-9]{32})"/.exec(created.text)?.[1] ?? '';
    assert.ok(token, 'the token is on the page');
    const check = await server().request('GET', '/v1/program', { token });
    assert.equal(check.status, 200);
    assert.equal(check.body.data.program.name, 'Keyed');
    const write = await server().request('PUT', '/v1/program', { token, body: { name: 'Renamed' } });
    assert.equal(write.status, 403, 'a read key reads only');
    const listed = await owner.get(base);
    assert.doesNotMatch(listed.text, new RegExp(token), 'never shown again');

    const id = token.slice(3, 15);
    const revoked = await owner.post(`${base}/revoke`, { key: id });
    assert.equal(revoked.status, 303);
    assert.match((await owner.get(`${base}?done=revoked`)).text, /Revoked \d{4}-\d{2}-\d{2}/);
    const keys = await server().admin('GET', `/admin/v1/programs/${p.publicId}/api-keys`);
    assert.ok(keys.body.data.find((k) => k.id === id)?.revoked_at);
  });

  test('admins do not manage keys; a key of another program cannot be revoked from this one', async () => {
    const p = await server().newProgram('affiliate');
    const other = await server().newProgram('affiliate');
    const admin = await memberClient(server, p, 'notowner@example.com', 'admin');
    assert.equal((await admin.get(`/admin/programs/${p.publicId}/keys`)).status, 403);
    assert.doesNotMatch((await admin.get(`/admin/programs/${p.publicId}`)).text, /API keys/);

    const owner = await memberClient(server, p, 'realowner@example.com', 'owner');
    const theirs =
      (await server().admin('GET', `/admin/v1/programs/${other.publicId}/api-keys`)).body.data[0]?.id ?? '';
    await owner.get(`/admin/programs/${p.publicId}/keys`);
    await owner.post(`/admin/programs/${p.publicId}/keys/revoke`, { key: theirs });
    assert.equal((await server().request('GET', '/v1/program', { token: other.token })).status, 200);
  });
});
