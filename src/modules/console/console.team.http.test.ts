import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { queuedEmails } from '../../../test/outbox.ts';
import { locationOf, PageClient } from '../../../test/portal-client.ts';
import { addMember, createUser } from './console.service.ts';

const PASSWORD = 'Console123';
const clock = new ManualClock();

async function member(
  server: TestServer,
  email: string,
  program?: TestProgram,
  role?: 'owner' | 'admin' | 'viewer',
) {
  const created = await createUser(server.deps, {
    email,
    password: PASSWORD,
    operator: program === undefined,
  });
  assert.equal(created.kind, 'created');
  if (created.kind === 'created' && program && role)
    await addMember(server.deps, program.publicId, created.user.id, role);
}

async function signedIn(server: () => TestServer, email: string) {
  const client = new PageClient(server);
  const reply = await client.submit('/admin/sign-in', { email, password: PASSWORD });
  assert.equal(reply.status, 303, reply.text);
  return client;
}

/** The invitation link of the last e-mail to `to`, as a path. */
async function invitationPath(server: TestServer, program: TestProgram, to: string) {
  const mail = (await queuedEmails(server, program)).filter((m) => m.recipient === to).at(-1);
  const url = /https?:\/\/[^\s]+\/admin\/invite\/[A-Za-z0-9_-]{43}/.exec(mail?.text_body ?? '')?.[0];
  assert.ok(url, `an invitation e-mail to ${to}`);
  assert.match(mail?.html_body ?? '', /Accept the invitation/);
  return new URL(url).pathname;
}

describeEachDatabase(
  'owner console team',
  (server) => {
    test('an owner invites a newcomer: the e-mailed link sets a password, joins in the role and works once', async () => {
      const p = await server().newProgram('affiliate', { name: 'Team Co' });
      await member(server(), 'boss@example.com', p, 'owner');
      const owner = await signedIn(server, 'boss@example.com');
      const team = `/admin/programs/${p.publicId}/team`;
      const badInvite = await owner.submit(`${team}/invite`, { email: 'not-an-email', role: 'viewer' }, team);
      assert.equal(badInvite.status, 422);
      assert.match(badInvite.text, /Enter a valid e-mail address/);
      const sent = await owner.submit(`${team}/invite`, { email: 'new@example.com', role: 'viewer' }, team);
      assert.equal(locationOf(sent), `${team}?done=invited`);
      assert.match((await owner.get(team)).text, /new@example\.com · Viewer/);

      const path = await invitationPath(server(), p, 'new@example.com');
      const newcomer = new PageClient(server);
      const page = await newcomer.get(path);
      assert.equal(page.status, 200);
      assert.match(page.text, /Join Team Co/);
      const weak = await newcomer.post(path, { password: 'short' });
      assert.equal(weak.status, 422);
      assert.match(weak.text, /at least 8 characters/i);
      const joined = await newcomer.post(path, { password: 'Newcomer123' });
      assert.equal(joined.status, 303, joined.text);
      assert.equal(locationOf(joined), `/admin/programs/${p.publicId}`);
      assert.equal((await newcomer.get(`/admin/programs/${p.publicId}`)).status, 200);
      assert.match((await owner.get(team)).text, /new@example\.com<\/td><td data-label="Role">Viewer/);

      const again = await new PageClient(server).get(path);
      assert.equal(again.status, 410);
      assert.match(again.text, /cannot be used/);
    });

    test('someone with an account accepts with its own password; a wrong one joins nothing', async () => {
      const p = await server().newProgram('affiliate', { name: 'Second' });
      await member(server(), 'lead@example.com', p, 'owner');
      await member(server(), 'known@example.com', await server().newProgram('referral'), 'admin');
      const owner = await signedIn(server, 'lead@example.com');
      const team = `/admin/programs/${p.publicId}/team`;
      await owner.submit(`${team}/invite`, { email: 'KNOWN@example.com', role: 'admin' }, team);
      const path = await invitationPath(server(), p, 'KNOWN@example.com');
      const known = new PageClient(server);
      assert.match((await known.get(path)).text, /Your password/);
      const wrong = await known.post(path, { password: 'Wrong1234' });
      assert.equal(wrong.status, 422);
      assert.match(wrong.text, /not the password of this account/);
      const right = await known.post(path, { password: PASSWORD });
      assert.equal(right.status, 303);
      const list = await known.get('/admin/programs');
      assert.match(list.text, />Second</);
    });

    test('an invitation expires after seven days', async () => {
      const p = await server().newProgram('affiliate');
      await member(server(), 'slow@example.com', p, 'owner');
      const owner = await signedIn(server, 'slow@example.com');
      const team = `/admin/programs/${p.publicId}/team`;
      await owner.submit(`${team}/invite`, { email: 'late@example.com', role: 'viewer' }, team);
      const path = await invitationPath(server(), p, 'late@example.com');
      clock.advance(7 * 24 * 60 * 60 * 1000 + 1000);
      const late = new PageClient(server);
      assert.equal((await late.get(path)).status, 410);
      await late.get('/admin/sign-in'); // a page with a form, for a CSRF token: the expired one has none
      assert.equal((await late.post(path, { password: 'Newcomer123' })).status, 410);
    });

    test('a removed member is signed out and the program is gone for them; the last owner stays', async () => {
      const p = await server().newProgram('affiliate');
      await member(server(), 'chief@example.com', p, 'owner');
      await member(server(), 'helper@example.com', p, 'admin');
      const owner = await signedIn(server, 'chief@example.com');
      const helper = await signedIn(server, 'helper@example.com');
      const team = `/admin/programs/${p.publicId}/team`;
      assert.equal((await helper.get(team)).status, 403, 'admins do not manage the team');
      const page = await owner.get(team);
      const helperId =
        /name="user" value="(\d+)" aria-label="Remove helper@example\.com"/.exec(page.text)?.[1] ?? '';
      const chiefId =
        /name="user" value="(\d+)" aria-label="Remove chief@example\.com"/.exec(page.text)?.[1] ?? '';
      const lastOwner = await owner.post(`${team}/remove`, { user: chiefId });
      assert.equal(locationOf(lastOwner), `${team}?problem=last_owner`);
      const removed = await owner.post(`${team}/remove`, { user: helperId });
      assert.equal(locationOf(removed), `${team}?done=removed`);
      const after = await helper.get(`/admin/programs/${p.publicId}`);
      assert.equal(after.status, 303, 'signed out');
      const back = await signedIn(server, 'helper@example.com');
      assert.equal((await back.get(`/admin/programs/${p.publicId}`)).status, 404);
    });
  },
  { clock },
);
