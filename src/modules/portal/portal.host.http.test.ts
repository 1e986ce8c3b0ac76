import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { locationOf, PageClient, signUpPartner } from '../../../test/portal-client.ts';

const setHost = (server: TestServer, p: TestProgram, portal_host: unknown) =>
  server.request('PUT', '/v1/program', { token: p.token, body: { program_settings: { portal_host } } });

/** A host name no other test uses (programs of one file share the database). */
let hosts = 0;
const newHost = () => `partners-${++hosts}.acme.test`;

const signUpAt = (server: () => TestServer, base: string, email: string, host?: string) =>
  signUpPartner(server, base, email, host === undefined ? {} : { host });

describeEachDatabase('partner portal on its own host', (server) => {
  test('portal_host: a host name, unique across programs, shown in the settings and the portal URL', async () => {
    const p = await server().newProgram('affiliate');
    for (const bad of [
      'not a host',
      'https://acme.test',
      'acme.test:8080',
      'acme.test/p',
      'localhost',
      '-a.test',
      7,
    ])
      assert.equal((await setHost(server(), p, bad)).status, 422, `${bad} is refused`);
    const refused = await setHost(server(), p, 'acme.test/portal');
    assert.deepEqual(Object.keys(refused.error.errors), ['program_settings.portal_host']);

    const host = newHost();
    const set = await setHost(server(), p, host.toUpperCase());
    assert.equal(set.status, 200, set.text);
    const overview = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(overview.program.program_settings.portal_host, host, 'stored in lower case');
    assert.equal(overview.overview_program_current_settings.partner_portal_url, `https://${host}/`);

    const other = await server().newProgram('affiliate');
    const taken = await setHost(server(), other, host);
    assert.equal(taken.status, 422, taken.text);
    assert.deepEqual(Object.keys(taken.error.errors), ['program_settings.portal_host']);
    assert.equal((await setHost(server(), p, host)).status, 200, 'setting its own host again is fine');

    const referral = await server().newProgram('referral');
    assert.equal((await setHost(server(), referral, newHost())).status, 422, 'affiliate programs only');

    assert.equal((await setHost(server(), p, null)).status, 200);
    const cleared = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(cleared.program.program_settings.portal_host, null);
    assert.equal(
      cleared.overview_program_current_settings.partner_portal_url,
      `${server().url}/p/${p.publicId}`,
    );
    assert.equal((await setHost(server(), other, host)).status, 200, 'a released host can be taken');
  });

  test('the portal at / on its host: host-relative links, forms and cookies; the API still works there', async () => {
    const p = await server().newProgram('affiliate', { name: 'Acme' });
    const host = newHost();
    assert.equal((await setHost(server(), p, host)).status, 200);

    const visitor = new PageClient(server, host);
    const home = await visitor.get('/');
    assert.equal(home.status, 200, home.text);
    assert.equal(home.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(home.text, /href="\/sign-up"/);
    assert.doesNotMatch(home.text, /\/p\//, 'no link leaves the host-relative paths');

    const { client, reply } = await signUpAt(server, '', 'jane@example.com', `${host.toUpperCase()}:8443`);
    assert.match(reply.headers.get('set-cookie') ?? '', /vouch_portal=[^;]+; Max-Age=\d+; Path=\/; HttpOnly/);
    const dashboard = await client.get('/dashboard');
    assert.equal(dashboard.status, 200, dashboard.text);
    assert.match(dashboard.text, /Welcome, Jane/);
    assert.match(dashboard.text, /href="\/settings"/);
    assert.match(dashboard.text, /action="\/sign-out"/);
    assert.doesNotMatch(dashboard.text, /href="\/p\//);
    assert.equal((await client.get('/settings')).status, 200);
    const signedOut = await client.post('/sign-out');
    assert.equal(signedOut.status, 200);
    assert.equal(locationOf(await client.get('/dashboard')), '/sign-in');

    // The same portal still answers at /p/{id}, with its links there.
    const byPath = await new PageClient(server, host).get(`/p/${p.publicId}`);
    assert.equal(byPath.status, 200);
    assert.match(byPath.text, new RegExp(`href="/p/${p.publicId}/sign-up"`));

    const api = await server().request('GET', '/v1/program', { token: p.token, headers: { host } });
    assert.equal(api.status, 200);
    assert.equal(api.headers.get('content-type'), 'application/json');
    assert.equal((await server().request('GET', '/health', { headers: { host } })).status, 200);
    const unknownPath = await server().request('GET', '/nothing-here', { headers: { host } });
    assert.equal(unknownPath.status, 404);
    assert.equal(unknownPath.headers.get('content-type'), 'application/json');
  });

  test("another program's session cookie is refused on the host", async () => {
    const a = await server().newProgram('affiliate');
    const b = await server().newProgram('affiliate');
    const host = newHost();
    assert.equal((await setHost(server(), a, host)).status, 200);
    const { client } = await signUpAt(server, `/p/${b.publicId}`, 'bob@example.com');
    const cookie = client.cookie('vouch_portal');
    assert.ok(cookie);
    const onHost = new PageClient(server, host);
    onHost.setCookie('vouch_portal', cookie, '/');
    const dashboard = await onHost.get('/dashboard');
    assert.equal(dashboard.status, 303);
    assert.equal(locationOf(dashboard), '/sign-in');
    assert.match(
      dashboard.headers.get('set-cookie') ?? '',
      /vouch_portal=; .*Path=\//,
      'the cookie is cleared',
    );
    // And the host's own session does not open program B's portal.
    const { client: own } = await signUpAt(server, '', 'ann@example.com', host);
    const mine = own.cookie('vouch_portal');
    assert.ok(mine);
    const atB = new PageClient(server);
    atB.setCookie('vouch_portal', mine, `/p/${b.publicId}`);
    assert.equal(locationOf(await atB.get(`/p/${b.publicId}/dashboard`)), `/p/${b.publicId}/sign-in`);
  });

  test('an unknown host serves nothing new: the API 404 on every portal path', async () => {
    const p = await server().newProgram('affiliate');
    assert.equal((await setHost(server(), p, newHost())).status, 200);
    for (const host of ['unknown.test', '127.0.0.1', ''])
      for (const [method, path] of [
        ['GET', '/'],
        ['GET', '/sign-in'],
        ['GET', '/dashboard'],
        ['POST', '/sign-in'],
        ['GET', '/link/abc'],
      ] as const) {
        const reply = await server().request(method, path, {
          headers: host ? { host, 'content-type': 'application/x-www-form-urlencoded' } : {},
          ...(method === 'POST' ? { body: 'email=a%40b.c&password=x' } : {}),
        });
        assert.equal(reply.status, 404, `${method} ${path} on ${host || 'the server address'}`);
        assert.equal(reply.headers.get('content-type'), 'application/json');
        assert.deepEqual(reply.body, {
          message: `The route ${path} could not be found.`,
          errors: {},
          status: 0,
        });
        assert.equal(reply.headers.get('set-cookie'), null, 'no CSRF or session cookie');
      }
  });
});

describeEachDatabase(
  'partner portal on its own host behind a proxy',
  (server) => {
    test('the host comes from X-Forwarded-Host with TRUST_PROXY on', async () => {
      const p = await server().newProgram('affiliate');
      const host = newHost();
      assert.equal((await setHost(server(), p, host)).status, 200);
      const proxied = await server().request('GET', '/sign-in', {
        headers: { host: 'vouch.internal:8080', 'x-forwarded-host': host, 'x-forwarded-proto': 'https' },
      });
      assert.equal(proxied.status, 200, proxied.text);
      assert.match(proxied.text, /action="\/sign-in"/);
      const direct = await server().request('GET', '/sign-in', { headers: { host: 'vouch.internal:8080' } });
      assert.equal(direct.status, 404);
    });
  },
  { env: { TRUST_PROXY: 'on' } },
);
