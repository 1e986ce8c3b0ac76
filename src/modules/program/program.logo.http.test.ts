import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestServer } from '../../../test/harness.ts';
import { JPEG_LOGO, PNG_LOGO, SVG_LOGO } from '../../../test/logos.ts';

/** Sends a logo as the body of `PUT /v1/program/logo` (the harness sends JSON only). */
async function upload(server: TestServer, token: string, body: Buffer | string, type: string) {
  const sent = typeof body === 'string' ? body : new Uint8Array(body);
  const res = await fetch(`${server.url}/v1/program/logo`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body: sent,
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: unknown; message?: string; errors?: unknown },
  };
}

const fetchLogo = (server: TestServer, url: string, init?: RequestInit) =>
  fetch(url.startsWith('http') ? url : `${server.url}${url}`, { redirect: 'manual', ...init });

describeEachDatabase('program logo', (server) => {
  test('a PNG is stored, shown in GET /v1/program and served with its type and a year of caching', async () => {
    const p = await server().newProgram('affiliate');
    const up = await upload(server(), p.token, PNG_LOGO, 'image/png');
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const data = up.body.data as { url: string; content_type: string; size: number };
    assert.equal(data.content_type, 'image/png');
    assert.equal(data.size, PNG_LOGO.length);
    assert.match(data.url, new RegExp(`^/logos/${p.publicId}/[0-9a-f]{20}$`));

    const overview = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(overview.body.data.program.uploaded_logo_url, `${server().url}${data.url}`);

    const served = await fetchLogo(server(), data.url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-security-policy') ?? '', /default-src 'none'.*sandbox/);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG_LOGO);
    const etag = served.headers.get('etag') ?? '';
    assert.equal((await fetchLogo(server(), data.url, { headers: { 'if-none-match': etag } })).status, 304);

    // A URL of an older file is sent on to the current one.
    const old = await fetchLogo(server(), `/logos/${p.publicId}/0123456789abcdef0123`);
    assert.equal(old.status, 302);
    assert.equal(old.headers.get('location'), data.url.split('/').at(-1));

    const removed = await server().request('DELETE', '/v1/program/logo', { token: p.token });
    assert.equal(removed.status, 200);
    assert.equal((await fetchLogo(server(), data.url)).status, 404);
    assert.equal((await server().request('DELETE', '/v1/program/logo', { token: p.token })).status, 404);
    const after = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(after.body.data.program.uploaded_logo_url, null);
  });

  test('a JPEG is taken, also declared as image/jpg; a new upload replaces the old', async () => {
    const p = await server().newProgram('referral');
    const first = await upload(server(), p.token, PNG_LOGO, 'image/png');
    const jpeg = await upload(server(), p.token, JPEG_LOGO, 'image/jpg');
    assert.equal(jpeg.status, 200, JSON.stringify(jpeg.body));
    const data = jpeg.body.data as { url: string; content_type: string };
    assert.equal(data.content_type, 'image/jpeg');
    const served = await fetchLogo(server(), data.url);
    assert.equal(served.headers.get('content-type'), 'image/jpeg');
    const firstUrl = (first.body.data as { url: string }).url;
    assert.equal((await fetchLogo(server(), firstUrl)).status, 302);
  });

  test('an SVG with script is served cleaned, under a policy that runs nothing', async () => {
    const p = await server().newProgram('newsletter');
    const hostile = SVG_LOGO.replace(
      '<rect',
      '<script>alert(1)</script><a href="javascript:alert(2)"><circle r="1"/></a><image href="https://tracker.example/x.png"/><rect onload="alert(3)"',
    );
    const up = await upload(server(), p.token, `<?xml version="1.0"?>\n${hostile}`, 'image/svg+xml');
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const served = await fetchLogo(server(), (up.body.data as { url: string }).url);
    assert.equal(served.headers.get('content-type'), 'image/svg+xml');
    assert.match(served.headers.get('content-security-policy') ?? '', /sandbox/);
    const text = await served.text();
    assert.match(text, /^<svg/);
    assert.match(text, /viewBox="0 0 120 40"/, 'the drawing stays, with its case');
    assert.doesNotMatch(text, /script|alert|javascript:|onload|tracker\.example/i);
  });

  test('a logo too large answers 413, the wrong type 422 naming the logo, and nothing is stored', async () => {
    const p = await server().newProgram('affiliate');
    const big = Buffer.concat([PNG_LOGO, Buffer.alloc(600 * 1024)]);
    const tooBig = await upload(server(), p.token, big, 'image/png');
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.body.message, 'The logo must not be larger than 512 KB.');
    const huge = await upload(server(), p.token, Buffer.alloc(2 * 1024 * 1024), 'image/png');
    assert.equal(huge.status, 413);
    assert.equal(huge.body.message, 'The logo must not be larger than 512 KB.');

    for (const [body, type, said] of [
      ['hello', 'text/plain', /PNG, JPEG or SVG/],
      [Buffer.from('GIF89a....'), 'image/gif', /PNG, JPEG or SVG/],
      [PNG_LOGO, 'image/svg+xml', /does not match its content \(image\/png\)/],
      ['', 'image/png', /required/],
      [
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>',
        'image/svg+xml',
        /document type/,
      ],
      ['{"logo":"x"}', 'application/json', /PNG, JPEG or SVG/],
    ] as const) {
      const refused = await upload(server(), p.token, body, type);
      assert.equal(refused.status, 422, `${type}: ${JSON.stringify(refused.body)}`);
      const errors = refused.body.errors as Record<string, string[]>;
      assert.match(errors.logo?.[0] ?? '', said, type);
    }
    const overview = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(overview.body.data.program.uploaded_logo_url, null);
  });

  test('a read-only key may not upload', async () => {
    const p = await server().newProgram('affiliate');
    assert.equal((await upload(server(), p.readToken, PNG_LOGO, 'image/png')).status, 403);
  });
});
