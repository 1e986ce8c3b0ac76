import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { locationOf, PageClient } from '../../../test/portal-client.ts';
import { addMember, createUser } from './console.service.ts';

const PASSWORD = 'Console123';

async function signedInAs(server: () => TestServer, p: TestProgram, email: string, role: 'admin' | 'viewer') {
  const created = await createUser(server().deps, { email, password: PASSWORD, operator: false });
  assert.equal(created.kind, 'created');
  if (created.kind === 'created') await addMember(server().deps, p.publicId, created.user.id, role);
  const client = new PageClient(server);
  assert.equal((await client.submit('/admin/sign-in', { email, password: PASSWORD })).status, 303);
  return client;
}

/** Every field of the settings form as the page shows it: what a browser would post unchanged. */
function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(
    /<input id="setting-[^"]*" name="([^"]+)" type="(text|checkbox)"([^>]*)>/g,
  )) {
    const [, name = '', type, rest = ''] = match;
    if (type === 'checkbox') {
      if (/\bchecked\b/.test(rest)) fields[name] = 'yes';
    } else fields[name] = /value="([^"]*)"/.exec(rest)?.[1] ?? '';
  }
  for (const match of html.matchAll(/<select id="setting-[^"]*" name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const [, name = '', options = ''] = match;
    fields[name] = /<option value="([^"]*)" selected/.exec(options)?.[1] ?? '';
  }
  return fields;
}

describeEachDatabase('owner console settings', (server) => {
  test('the page shows the settings; a value out of range gets the API’s message by its field, nothing saved', async () => {
    const p = await server().newProgram('affiliate', { name: 'Settled' });
    await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: { commission: { type: 'percent', value: 25 }, commission_hold_days: 14 } },
    });
    const client = await signedInAs(server, p, 'set@example.com', 'admin');
    const path = `/admin/programs/${p.publicId}/settings`;
    const page = await client.get(path);
    const fields = formFields(page.text);
    assert.equal(fields['program_settings.commission.value'], '25');
    assert.equal(fields['program_settings.commission_hold_days'], '14');
    assert.equal(fields['program_settings.partner_auto_approve'], 'yes');
    assert.equal(fields.name, 'Settled');

    const api = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: { commission_hold_days: 99999 } },
    });
    const apiMessage = api.error.errors['program_settings.commission_hold_days']?.[0] ?? '';
    assert.ok(apiMessage);
    const refused = await client.post(path, { ...fields, 'program_settings.commission_hold_days': '99999' });
    assert.equal(refused.status, 422);
    assert.ok(
      refused.text.includes(`id="setting-program_settings-commission_hold_days-error">${apiMessage}<`),
      refused.text,
    );
    const unchanged = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(unchanged.body.data.program.program_settings.commission_hold_days, 14);
  });

  test('a saved form changes what GET /v1/program answers; a box left unticked turns its setting off', async () => {
    const p = await server().newProgram('affiliate', { name: 'Before' });
    const client = await signedInAs(server, p, 'saver@example.com', 'admin');
    const path = `/admin/programs/${p.publicId}/settings`;
    const fields = formFields((await client.get(path)).text);
    const { 'program_settings.partner_auto_approve': _auto, ...rest } = fields;
    const saved = await client.post(path, {
      ...rest,
      name: 'After',
      'program_settings.commission.type': 'fixed',
      'program_settings.commission.value': '12.5',
      'program_settings.commission.duration': 'months',
      'program_settings.commission.duration_value': '6',
      'program_settings.currency': 'eur',
    });
    assert.equal(saved.status, 303, saved.text);
    assert.equal(locationOf(saved), `${path}?saved=1`);
    const now = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program;
    assert.equal(now.name, 'After');
    const settings = now.program_settings as Record<string, unknown>;
    assert.deepEqual(settings.commission, {
      type: 'fixed',
      value: 12.5,
      duration: 'months',
      duration_value: 6,
    });
    assert.equal(settings.currency, 'EUR');
    assert.equal(settings.partner_auto_approve, false);
    assert.match((await client.get(`${path}?saved=1`)).text, /The settings were saved/);
  });

  test('a viewer reads the settings without a save button, and a post is refused', async () => {
    const p = await server().newProgram('referral');
    const viewer = await signedInAs(server, p, 'look@example.com', 'viewer');
    const path = `/admin/programs/${p.publicId}/settings`;
    const page = await viewer.get(path);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /Save settings/);
    assert.equal((await viewer.post(path, { name: 'Hijacked' })).status, 403);
  });
});
