import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  type ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { queuedEmails, withClockedServer } from '../../../test/outbox.ts';
import { NOTICE_SETTLE_MS } from '../../core/notices.ts';
import { queueDueNotices } from './notices.service.ts';

const PUBLIC_URL = 'https://vouch.friends.example';

/** Refer-a-friend customers are welcomed with their link and portal, through the outbox. */
describeEachDatabase('refer-a-friend welcome e-mails', (server) => {
  const withOwnServer = (run: (own: TestServer, clock: ManualClock) => Promise<void>) =>
    withClockedServer(server().dialect, { PUBLIC_URL }, run);

  const createCustomer = async (
    own: TestServer,
    p: TestProgram<'referral'>,
    body: Record<string, unknown>,
  ) => {
    const res = await own.request('POST', '/v1/customers', { token: p.token, body });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  const putSettings = async (own: TestServer, p: TestProgram, settings: Record<string, unknown>) => {
    const res = await own.request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: settings },
    });
    assert.equal(res.status, 200, res.text);
  };

  test('a new customer gets its referral link and portal once, after its write settles', async () => {
    await withOwnServer(async (own, clock) => {
      const p = await own.newProgram('referral', { name: 'Bike <Club>', website: 'https://bikes.example' });
      const kim = await createCustomer(own, p, {
        id: 'kim',
        email: 'kim@example.com',
        name: 'Kim',
        surname: 'Lee',
      });
      const ann = await createCustomer(own, p, { id: 'ann', email: 'ann@example.com' });
      const archived = await own.request('POST', `/v1/customers/${ann.id}/archive`, { token: p.token });
      assert.equal(archived.status, 200, archived.text);
      assert.equal(await queueDueNotices(own.deps), 0, 'not before the write has settled');
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 1);
      assert.equal(await queueDueNotices(own.deps), 0, 'once');
      const [mail] = await queuedEmails(own, p);
      assert.ok(mail);
      assert.equal(mail.recipient, 'kim@example.com');
      assert.equal(mail.subject, 'Your Bike <Club> referral link');
      assert.match(mail.text_body, /^Hello Kim Lee,/);
      assert.ok(
        mail.text_body.includes(`Your referral link, to share:\n${kim.referral_link}\n`),
        mail.text_body,
      );
      assert.ok(mail.text_body.includes(`${PUBLIC_URL}/c/${p.publicId}\n`));
      assert.ok(mail.html_body.includes('Bike &#60;Club&#62;'));
    });
  });

  test('welcome_email_enabled false, or the portal off: nobody is welcomed, not even later', async () => {
    await withOwnServer(async (own, clock) => {
      const off = await own.newProgram('referral');
      await putSettings(own, off, { welcome_email_enabled: false });
      await createCustomer(own, off, { id: 'a', email: 'a@example.com' });
      const noPortal = await own.newProgram('referral');
      await putSettings(own, noPortal, { referral_portal_enabled: false });
      await createCustomer(own, noPortal, { id: 'b', email: 'b@example.com' });
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 0);
      await putSettings(own, off, { welcome_email_enabled: true });
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 0, 'no late welcome');
      await createCustomer(own, off, { id: 'c', email: 'c@example.com' });
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 1);
      assert.deepEqual(
        (await queuedEmails(own, off)).map((m) => m.recipient),
        ['c@example.com'],
      );
      assert.deepEqual(await queuedEmails(own, noPortal), []);
    });
  });
});
