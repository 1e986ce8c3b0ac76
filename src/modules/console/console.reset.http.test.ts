import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONSOLE_PASSWORD, consoleUser, signedInConsole } from '../../../test/console.ts';
import { describeEachDatabase, ManualClock, type TestServer } from '../../../test/harness.ts';
import { locationOf, PageClient } from '../../../test/portal-client.ts';

const clock = new ManualClock();

/** E-mails of no program (a console user's own) to `to`, oldest first. */
const serverEmailsTo = (server: TestServer, to: string) =>
  server.deps.database.db
    .selectFrom('email_outbox')
    .select(['subject', 'text_body'])
    .where('program_id', 'is', null)
    .where('recipient', '=', to)
    .orderBy('id')
    .execute();

async function resetPath(server: TestServer, to: string) {
  const mail = (await serverEmailsTo(server, to)).at(-1);
  const url = /https?:\/\/\S+\/admin\/reset\/[A-Za-z0-9_-]{43}/.exec(mail?.text_body ?? '')?.[0];
  assert.ok(url, `a reset e-mail to ${to}`);
  return new URL(url).pathname;
}

describeEachDatabase(
  'owner console password reset',
  (server) => {
    test('a reset link sets a new password once and ends the other sessions; unknown addresses get the same answer', async () => {
      await consoleUser(server(), 'forgetful@example.com');
      const elsewhere = await signedInConsole(server, 'forgetful@example.com');

      const unknown = await new PageClient(server).submit('/admin/forgot', { email: 'nobody@example.com' });
      const known = await new PageClient(server).submit('/admin/forgot', { email: 'forgetful@example.com' });
      assert.equal(locationOf(unknown), '/admin/forgot?sent=1');
      assert.equal(locationOf(known), locationOf(unknown));
      assert.deepEqual(await serverEmailsTo(server(), 'nobody@example.com'), []);

      const path = await resetPath(server(), 'forgetful@example.com');
      const client = new PageClient(server);
      assert.equal((await client.get(path)).status, 200);
      const weak = await client.post(path, { password: 'weakpass' });
      assert.equal(weak.status, 422);
      assert.match(weak.text, /uppercase/i);
      const done = await client.post(path, { password: 'Remembered9' });
      assert.equal(done.status, 303, done.text);
      assert.equal(locationOf(done), '/admin/programs');
      assert.equal((await client.get('/admin/programs')).status, 200);

      assert.equal((await elsewhere.get('/admin/programs')).status, 303, 'the other session ended');
      assert.equal((await new PageClient(server).get(path)).status, 410, 'the link works once');
      const old = await new PageClient(server).submit('/admin/sign-in', {
        email: 'forgetful@example.com',
        password: CONSOLE_PASSWORD,
      });
      assert.equal(old.status, 422);
      const fresh = await new PageClient(server).submit('/admin/sign-in', {
        email: 'forgetful@example.com',
        password: 'Remembered9',
      });
      assert.equal(fresh.status, 303);
    });

    test('a reset link expires after 15 minutes', async () => {
      await consoleUser(server(), 'late@example.com');
      await new PageClient(server).submit('/admin/forgot', { email: 'late@example.com' });
      const path = await resetPath(server(), 'late@example.com');
      clock.advance(15 * 60 * 1000 + 1000);
      const late = new PageClient(server);
      assert.equal((await late.get(path)).status, 410);
      await late.get('/admin/sign-in');
      assert.equal((await late.post(path, { password: 'Remembered9' })).status, 410);
    });
  },
  { clock },
);
