import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { queuedEmails, withClockedServer } from '../../../test/outbox.ts';
import { NOTICE_SETTLE_MS } from '../../core/notices.ts';
import { addMember, createUser } from '../console/console.service.ts';
import { queueDueNotices } from './notices.service.ts';

const PUBLIC_URL = 'https://vouch.acme.example';

async function consoleUser(
  own: TestServer,
  email: string,
  member?: { p: TestProgram; role: 'owner' | 'admin' },
) {
  const created = await createUser(own.deps, {
    email,
    password: 'Console123',
    operator: member === undefined,
  });
  assert.equal(created.kind, 'created');
  if (created.kind === 'created' && member)
    await addMember(own.deps, member.p.publicId, created.user.id, member.role);
}

async function apply(own: TestServer, p: TestProgram, email: string, approved: boolean) {
  const res = await own.request('POST', '/v1/partners', {
    token: p.token,
    body: { email, name: 'Nia', approved },
  });
  assert.equal(res.status, 201, res.text);
}

const applied = async (own: TestServer, p: TestProgram) =>
  (await queuedEmails(own, p)).filter((m) => m.subject.endsWith('a new partner applied'));

describeEachDatabase('e-mail notices to owners', (server) => {
  test("a partner who applies is announced once to the program's owners, with the console's applicants", async () => {
    await withClockedServer(server().dialect, { PUBLIC_URL }, async (own, clock) => {
      const p = await own.newProgram('affiliate', { name: 'Acme' });
      await consoleUser(own, 'owner@acme.example', { p, role: 'owner' });
      await consoleUser(own, 'admin@acme.example', { p, role: 'admin' });
      await consoleUser(own, 'operator@acme.example');
      await apply(own, p, 'applicant@example.com', false);
      await apply(own, p, 'approved@example.com', true);
      clock.advance(NOTICE_SETTLE_MS);
      await queueDueNotices(own.deps);
      await queueDueNotices(own.deps);
      const mails = await applied(own, p);
      assert.deepEqual(
        mails.map((m) => m.recipient),
        ['owner@acme.example'],
        'owners only, once, and only for the applicant',
      );
      const [mail] = mails;
      assert.equal(mail?.subject, 'Acme: a new partner applied');
      assert.match(
        mail?.text_body ?? '',
        /Nia \(applicant@example\.com\) applied to the Acme partner program/,
      );
      assert.ok(
        mail?.text_body.includes(`${PUBLIC_URL}/admin/programs/${p.publicId}/partners?status=pending`),
      );
    });
  });

  test('without owners the operators are told; new_partner_email_enabled false tells nobody', async () => {
    await withClockedServer(server().dialect, { PUBLIC_URL }, async (own, clock) => {
      const p = await own.newProgram('affiliate');
      await apply(own, p, 'early@example.com', false);
      clock.advance(NOTICE_SETTLE_MS);
      await queueDueNotices(own.deps);
      assert.deepEqual(await applied(own, p), [], 'no console user yet: nobody to tell');

      await consoleUser(own, 'ops@acme.example');
      await apply(own, p, 'second@example.com', false);
      clock.advance(NOTICE_SETTLE_MS);
      await queueDueNotices(own.deps);
      assert.deepEqual(
        (await applied(own, p)).map((m) => m.recipient),
        ['ops@acme.example'],
      );

      const off = await own.request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { new_partner_email_enabled: false } },
      });
      assert.equal(off.status, 200, off.text);
      await apply(own, p, 'third@example.com', false);
      clock.advance(NOTICE_SETTLE_MS);
      await queueDueNotices(own.deps);
      assert.equal((await applied(own, p)).length, 1);
    });
  });
});
