import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberClient, settingsFormFields } from '../../../test/console.ts';
import { describeEachDatabase } from '../../../test/harness.ts';
import { PNG_LOGO, SVG_LOGO } from '../../../test/logos.ts';
import { locationOf } from '../../../test/portal-client.ts';

const fileForm = (bytes: Buffer | string, name: string, type: string) => {
  const form = new FormData();
  form.set('logo', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type }), name);
  return form;
};

describeEachDatabase('owner console branding', (server) => {
  test('the Branding group saves colour, logo URL and terms URL; a low-contrast colour gets the API’s message', async () => {
    const p = await server().newProgram('affiliate', { name: 'Branded' });
    const client = await memberClient(server, p, 'brand@example.com', 'admin');
    const path = `/admin/programs/${p.publicId}/settings`;
    const page = await client.get(path);
    assert.match(page.text, /<h2>Branding<\/h2>/);
    const fields = settingsFormFields(page.text);
    assert.equal(fields['program_settings.brand_color'], '');

    const api = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: { brand_color: '#facc15' } },
    });
    assert.equal(api.status, 422);
    const apiMessage = api.error.errors['program_settings.brand_color']?.[0] ?? '';
    assert.match(apiMessage, /contrast of at least 4\.5:1 with white text \(this colour has 1\.\d\d:1\)/);
    const refused = await client.post(path, { ...fields, 'program_settings.brand_color': '#facc15' });
    assert.equal(refused.status, 422);
    assert.ok(refused.text.includes(`id="setting-program_settings-brand_color-error">${apiMessage}<`));

    const saved = await client.post(path, {
      ...fields,
      'program_settings.brand_color': '#0F766E',
      'program_settings.logo_url': 'https://cdn.example.com/logo.png',
      'program_settings.terms_url': 'https://branded.example.com/terms',
    });
    assert.equal(saved.status, 303, saved.text);
    const settings = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program
      .program_settings;
    assert.equal(settings.brand_color, '#0F766E');
    assert.equal(settings.logo_url, 'https://cdn.example.com/logo.png');
    assert.equal(settings.terms_url, 'https://branded.example.com/terms');

    const insecure = await client.post(path, {
      ...settingsFormFields((await client.get(path)).text),
      'program_settings.terms_url': 'http://branded.example.com/terms',
    });
    assert.equal(insecure.status, 422);
    assert.match(insecure.text, /The program settings\.terms url field must be an https URL\./);

    const cleared = await client.post(path, {
      ...settingsFormFields((await client.get(path)).text),
      'program_settings.logo_url': '',
    });
    assert.equal(cleared.status, 303);
    const after = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program;
    assert.equal(after.program_settings.logo_url, null);
  });

  test('a logo is uploaded from the page (multipart, CSRF checked), logged, shown, and removed', async () => {
    const p = await server().newProgram('newsletter');
    const client = await memberClient(server, p, 'logo@example.com', 'owner');
    const path = `/admin/programs/${p.publicId}/settings`;
    const page = await client.get(path);
    assert.match(page.text, /enctype="multipart\/form-data"/);
    assert.match(page.text, /No logo is uploaded/);

    const forged = fileForm(PNG_LOGO, 'logo.png', 'image/png');
    forged.set('_csrf', 'forged');
    assert.equal((await client.postMultipart(`${path}/logo`, forged)).status, 403);

    const uploaded = await client.postMultipart(`${path}/logo`, fileForm(PNG_LOGO, 'logo.png', 'image/png'));
    assert.equal(uploaded.status, 303, uploaded.text);
    assert.equal(uploaded.location, `${path}?saved=1`);
    const url = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program
      .uploaded_logo_url;
    assert.ok(url);
    const shown = await client.get(path);
    assert.ok(shown.text.includes(`src="${new URL(url).pathname}"`));
    assert.match(shown.text, /Remove logo/);

    const activity = await server().request('GET', '/v1/activity', { token: p.token });
    const entry = activity.body.data.find((e) => e.action === 'settings.logo.upload');
    assert.ok(entry, JSON.stringify(activity.body.data));
    assert.equal(entry.actor.name, 'logo@example.com');

    const big = Buffer.concat([PNG_LOGO, Buffer.alloc(520 * 1024)]);
    const tooBig = await client.postMultipart(`${path}/logo`, fileForm(big, 'big.png', 'image/png'));
    assert.equal(tooBig.status, 422);
    assert.match(tooBig.text, /id="logo-error">The logo must not be larger than 512 KB\.</);

    const wrong = await client.postMultipart(
      `${path}/logo`,
      fileForm('just text', 'notes.txt', 'text/plain'),
    );
    assert.equal(wrong.status, 422);
    assert.match(wrong.text, /id="logo-error">The logo must be a PNG, JPEG or SVG image\.</);

    const svg = await client.postMultipart(`${path}/logo`, fileForm(SVG_LOGO, 'logo.svg', 'image/svg+xml'));
    assert.equal(svg.status, 303);

    await client.get(path);
    const removed = await client.post(`${path}/logo/remove`);
    assert.equal(removed.status, 303);
    assert.equal(locationOf(removed), `${path}?saved=1`);
    const none = (await server().request('GET', '/v1/program', { token: p.token })).body.data.program;
    assert.equal(none.uploaded_logo_url, null);
  });

  test('a viewer sees no logo form and its upload is refused', async () => {
    const p = await server().newProgram('referral');
    const viewer = await memberClient(server, p, 'see@example.com', 'viewer');
    const path = `/admin/programs/${p.publicId}/settings`;
    const page = await viewer.get(path);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /type="file"|Upload logo|Remove logo/);
    const refused = await viewer.postMultipart(`${path}/logo`, fileForm(PNG_LOGO, 'logo.png', 'image/png'));
    assert.equal(refused.status, 403);
    assert.equal((await viewer.post(`${path}/logo/remove`)).status, 403);
  });
});
