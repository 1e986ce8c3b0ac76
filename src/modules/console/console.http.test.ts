import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN_TOKEN, describeEachDatabase, type TestServer } from '../../../test/harness.ts';
import { locationOf, PageClient } from '../../../test/portal-client.ts';
import { addMember, createUser } from './console.service.ts';

const PASSWORD = 'Console123';

/** A console user made as the CLI makes one; with `program`, a member of it in `role`. */
async function userOf(
  server: TestServer,
  email: string,
  member?: { program: string; role: 'owner' | 'admin' | 'viewer' },
) {
  const created = await createUser(server.deps, {
    email,
    password: PASSWORD,
    operator: member === undefined,
  });
  assert.equal(created.kind, 'created');
  if (created.kind === 'created' && member)
    await addMember(server.deps, member.program, created.user.id, member.role);
}

async function signedInClient(server: () => TestServer, email: string) {
  const client = new PageClient(server);
  const reply = await client.submit('/admin/sign-in', { email, password: PASSWORD });
  assert.equal(reply.status, 303, reply.text);
  assert.equal(locationOf(reply), '/admin/programs');
  return client;
}

describeEachDatabase('owner console', (server) => {
  test('set-up: the admin token is asked for, a weak password refused, then the first user is in and set-up is gone', async () => {
    const client = new PageClient(server);
    const start = await client.get('/admin');
    assert.equal(start.status, 303);
    assert.equal(locationOf(start), '/admin/setup');

    const wrongToken = await client.submit('/admin/setup', {
      token: 'not-the-token',
      email: 'owner@example.com',
      password: PASSWORD,
    });
    assert.equal(wrongToken.status, 422);
    assert.match(wrongToken.text, /This is not the admin token of this server/);

    const weak = await client.submit('/admin/setup', {
      token: ADMIN_TOKEN,
      email: 'owner@example.com',
      password: 'weakpass',
    });
    assert.equal(weak.status, 422);
    assert.match(weak.text, /uppercase/i);

    const done = await client.submit('/admin/setup', {
      token: ADMIN_TOKEN,
      email: 'owner@example.com',
      password: PASSWORD,
    });
    assert.equal(done.status, 303, done.text);
    assert.equal(locationOf(done), '/admin/programs');
    const programs = await client.get('/admin/programs');
    assert.equal(programs.status, 200);
    assert.match(programs.text, /Signed in as owner@example\.com/);

    assert.equal((await new PageClient(server).get('/admin/setup')).status, 404);
    const again = await new PageClient(server).post('/admin/setup', {
      token: ADMIN_TOKEN,
      email: 'second@example.com',
      password: PASSWORD,
    });
    assert.equal(again.status, 403, 'no CSRF token from a page that is gone');
  });

  test('a wrong password and an unknown e-mail get the same answer; a forged CSRF token is refused', async () => {
    await userOf(server(), 'same@example.com');
    const wrong = await new PageClient(server).submit('/admin/sign-in', {
      email: 'same@example.com',
      password: 'Wrong1234',
    });
    const unknown = await new PageClient(server).submit('/admin/sign-in', {
      email: 'nobody@example.com',
      password: 'Wrong1234',
    });
    assert.equal(wrong.status, 422);
    assert.equal(unknown.status, 422);
    const notice = (text: string) => /<p class="notice" role="alert">([^<]*)</.exec(text)?.[1];
    assert.equal(notice(wrong.text), 'The e-mail address or the password is not right.');
    assert.equal(notice(wrong.text), notice(unknown.text));

    const client = new PageClient(server);
    await client.get('/admin/sign-in');
    const forged = await client.post('/admin/sign-in', {
      _csrf: 'forged',
      email: 'same@example.com',
      password: PASSWORD,
    });
    assert.equal(forged.status, 403);
    assert.equal(client.cookie('vouch_console'), undefined);
  });

  test('a member sees only its programs; another program answers 404 as a missing one does', async () => {
    const mine = await server().newProgram('affiliate', { name: 'Mine' });
    const theirs = await server().newProgram('affiliate', { name: 'Theirs' });
    await userOf(server(), 'member@example.com', { program: mine.publicId, role: 'admin' });
    const client = await signedInClient(server, 'member@example.com');
    const list = await client.get('/admin/programs');
    assert.match(list.text, />Mine</);
    assert.doesNotMatch(list.text, />Theirs</);
    assert.equal((await client.get(`/admin/programs/${mine.publicId}`)).status, 200);
    const other = await client.get(`/admin/programs/${theirs.publicId}`);
    const missing = await client.get('/admin/programs/no-such-program');
    assert.equal(other.status, 404);
    assert.equal(missing.status, 404);
    assert.equal(other.text, missing.text);
    assert.equal((await client.get(`/admin/programs/${theirs.publicId}/partners`)).status, 404);
    assert.equal((await client.get('/admin/programs/new')).status, 303, 'only operators make programs');
  });

  test('the Pending filter finds applicants; Approve one and Approve selected move them as the API does', async () => {
    const p = await server().newProgram('affiliate', { name: 'Review' });
    const apply = async (email: string) =>
      (
        await server().request('POST', '/v1/partners', {
          token: p.token,
          body: { email, name: email.split('@')[0], approved: false },
        })
      ).body.data.id;
    const [a, b, c] = [
      await apply('a@example.com'),
      await apply('b@example.com'),
      await apply('c@example.com'),
    ];
    await server().request('POST', '/v1/partners', { token: p.token, body: { email: 'in@example.com' } });
    await userOf(server(), 'reviewer@example.com', { program: p.publicId, role: 'admin' });
    const client = await signedInClient(server, 'reviewer@example.com');
    const base = `/admin/programs/${p.publicId}/partners`;

    const pending = await client.get(`${base}?status=pending`);
    assert.equal(pending.status, 200);
    for (const email of ['a@', 'b@', 'c@']) assert.match(pending.text, new RegExp(`${email}example\\.com`));
    assert.doesNotMatch(pending.text, /in@example\.com/);

    const one = await client.post(`${base}/review`, { one: `approve:${a}` });
    assert.equal(one.status, 303);
    assert.equal(locationOf(one), `${base}?done=approved-1`);
    const body = new URLSearchParams({ _csrf: client.csrf, action: 'approve' });
    body.append('ids', b);
    body.append('ids', c);
    const selected = await client.postBody(`${base}/review`, body);
    assert.equal(locationOf(selected), `${base}?done=approved-2`);
    const after = await server().request('GET', '/v1/partners?approved=false', { token: p.token });
    assert.deepEqual(after.body.data, []);
    assert.match((await client.get(`${base}?done=approved-2`)).text, /2 partners approved\./);
  });

  test('a viewer sees no write control and every write is refused with 403', async () => {
    const p = await server().newProgram('affiliate', { name: 'Watched' });
    const applicant = (
      await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'wait@example.com', approved: false },
      })
    ).body.data.id;
    await userOf(server(), 'viewer@example.com', { program: p.publicId, role: 'viewer' });
    const client = await signedInClient(server, 'viewer@example.com');
    const base = `/admin/programs/${p.publicId}`;
    const partners = await client.get(`${base}/partners?status=pending`);
    assert.match(partners.text, /wait@example\.com/);
    assert.doesNotMatch(partners.text, />Approve<|>Reject<|selected</);
    assert.doesNotMatch((await client.get(`${base}/commissions`)).text, /Approve selected|Deny selected/);
    const refused = await client.post(`${base}/partners/review`, { one: `approve:${applicant}` });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /lets you read, not change/);
    const denied = await client.post(`${base}/commissions/review`, { action: 'approve', ids: '1' });
    assert.equal(denied.status, 403);
    const still = await server().request('GET', '/v1/partners?approved=false', { token: p.token });
    assert.equal(still.body.data.length, 1);
  });

  test('sign-out ends the session on the server: the old cookie no longer opens a page', async () => {
    await userOf(server(), 'leaving@example.com');
    const client = await signedInClient(server, 'leaving@example.com');
    const cookie = client.cookie('vouch_console') ?? '';
    assert.ok(cookie);
    await client.get('/admin/programs');
    assert.equal((await client.post('/admin/sign-out')).status, 303);
    const replay = new PageClient(server);
    replay.setCookie('vouch_console', cookie, '/admin');
    const page = await replay.get('/admin/programs');
    assert.equal(page.status, 303);
    assert.equal(locationOf(page), '/admin/sign-in');
  });
});
