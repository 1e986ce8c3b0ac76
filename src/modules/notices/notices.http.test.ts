import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { commissionProgram, sell } from '../../../test/commission-factories.ts';
import {
  describeEachDatabase,
  type ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { queuedEmails, withClockedServer } from '../../../test/outbox.ts';
import { startSmtp } from '../../../test/smtp-sink.ts';
import { NOTICE_SETTLE_MS } from '../../core/notices.ts';
import { EmailSender } from '../emails/emails.sender.ts';
import { queueDueNotices } from './notices.service.ts';

const PUBLIC_URL = 'https://partners.acme.example';

let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
});
after(() => smtp.close());

describeEachDatabase('e-mail notices', (server) => {
  const withOwnServer = (run: (own: TestServer, clock: ManualClock) => Promise<void>) =>
    withClockedServer(server().dialect, { PUBLIC_URL }, run);

  const createPartner = async (own: TestServer, p: TestProgram, body: Record<string, unknown>) => {
    const res = await own.request('POST', '/v1/partners', { token: p.token, body });
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

  test('new partners are welcomed once, with their referral link and portal, after their write settles', async () => {
    await withOwnServer(async (own, clock) => {
      const p = await own.newProgram('affiliate', {
        name: 'Acme <Partners>',
        website: 'https://acme.example',
      });
      const kim = await createPartner(own, p, {
        email: 'kim@example.com',
        name: 'Kim',
        surname: 'Lee',
        key: 'kim',
      });
      await createPartner(own, p, { email: 'ann@example.com', approved: false });
      assert.equal(await queueDueNotices(own.deps), 0, 'not before the write has settled');
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 2);
      assert.equal(await queueDueNotices(own.deps), 0, 'once');

      const [toKim, toAnn] = await queuedEmails(own, p);
      assert.ok(toKim && toAnn);
      assert.equal(toKim.recipient, 'kim@example.com');
      assert.equal(toKim.subject, 'Welcome to the Acme <Partners> partner program');
      assert.match(toKim.text_body, /^Hello Kim Lee,\n\nYou are now a partner of Acme <Partners>\./);
      assert.ok(toKim.text_body.includes(`Your referral link, to share:\n${kim.referral_link}\n`));
      assert.ok(toKim.text_body.includes(`${PUBLIC_URL}/p/${p.publicId}\n`));
      assert.ok(toKim.html_body.includes('Acme &#60;Partners&#62;'), 'the name is escaped in HTML');
      assert.ok(!toKim.html_body.includes('<Partners>'));
      assert.equal(toAnn.recipient, 'ann@example.com');
      assert.match(toAnn.text_body, /^Hello,\n\nThank you for applying/);

      // And it reaches a mailbox through the outbox.
      const sender = new EmailSender({
        ...own.deps,
        config: { ...own.deps.config, smtpUrl: `smtp://127.0.0.1:${smtp.port}` },
      });
      try {
        assert.equal(await sender.runOnce(), 2);
      } finally {
        sender.close();
      }
      const mail = smtp.mails.find((m) => m.to.includes('kim@example.com'));
      assert.ok(mail);
      assert.match(mail.raw, /^Subject: Welcome to the Acme <Partners> partner program/m);
    });
  });

  test('welcome_email_enabled false: nobody is welcomed, and turning it back on does not welcome them late', async () => {
    await withOwnServer(async (own, clock) => {
      const p = await own.newProgram('affiliate');
      await putSettings(own, p, { welcome_email_enabled: false });
      await createPartner(own, p, { email: 'off@example.com' });
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 0);
      await putSettings(own, p, { welcome_email_enabled: true });
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 0);
      await createPartner(own, p, { email: 'on@example.com' });
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 1);
      assert.deepEqual(
        (await queuedEmails(own, p)).map((m) => m.recipient),
        ['on@example.com'],
      );
    });
  });

  test('only news: a partner older than a day when the worker first looks is not welcomed', async () => {
    await withOwnServer(async (own, clock) => {
      const p = await own.newProgram('affiliate');
      await createPartner(own, p, { email: 'old@example.com' });
      clock.advance(25 * 60 * 60 * 1000);
      assert.equal(await queueDueNotices(own.deps), 0);
      assert.deepEqual(await queuedEmails(own, p), []);
    });
  });

  test('partners hear of new commissions once per pass, totals exact per currency', async () => {
    await withOwnServer(async (own, clock) => {
      const { p } = await commissionProgram(own);
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 2, 'the two partners are welcomed');
      await sell(own, p, 'c-pa', 's1', '200.10');
      await sell(own, p, 'c-pa', 's2', 100);
      await sell(own, p, 'c-pa', 's3', 500, 'EUR');
      await sell(own, p, 'c-pb', 's4', 200);
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 2);
      const news = (await queuedEmails(own, p)).filter((m) => m.subject.includes('you earned'));
      const byRecipient = new Map(news.map((m) => [m.recipient, m]));
      const { name } = await own.deps.database.db
        .selectFrom('programs')
        .select('name')
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow();
      assert.equal(byRecipient.get('pa@example.com')?.subject, `${name}: you earned 3 new commissions`);
      assert.match(byRecipient.get('pa@example.com')?.text_body ?? '', /worth 50\.00 EUR and 30\.01 USD/);
      assert.match(
        byRecipient.get('pb@example.com')?.text_body ?? '',
        /You earned a new commission worth 20\.00 USD/,
      );
      assert.ok(byRecipient.get('pb@example.com')?.text_body.includes(`${PUBLIC_URL}/p/${p.publicId}`));

      await sell(own, p, 'c-pa', 's5', 10);
      assert.equal(await queueDueNotices(own.deps), 0, 'not before it settles');
      clock.advance(NOTICE_SETTLE_MS);
      assert.equal(await queueDueNotices(own.deps), 1);
      assert.equal(await queueDueNotices(own.deps), 0);
    });
  });

  test('partner_email_notifications_enabled false: no commission news and no payout e-mail', async () => {
    await withOwnServer(async (own, clock) => {
      const { p } = await commissionProgram(own, { partner_email_notifications_enabled: false });
      await sell(own, p, 'c-pa', 's1', 300);
      clock.advance(NOTICE_SETTLE_MS);
      await queueDueNotices(own.deps);
      const payout = await own.request('POST', '/v1/payouts', { token: p.token, body: {} });
      assert.equal(payout.status, 201, payout.text);
      const paid = await own.request('POST', `/v1/payouts/${payout.body.data.id}/mark-paid`, {
        token: p.token,
      });
      assert.equal(paid.status, 200, paid.text);
      const subjects = (await queuedEmails(own, p)).map((m) => m.subject);
      assert.equal(subjects.filter((s) => s.startsWith('Welcome')).length, 2);
      assert.deepEqual(
        subjects.filter((s) => !s.startsWith('Welcome')),
        [],
      );
    });
  });

  test('two workers at once announce each partner once', async () => {
    await withOwnServer(async (own, clock) => {
      const p = await own.newProgram('affiliate');
      for (let i = 0; i < 5; i++) await createPartner(own, p, { email: `p${i}@example.com` });
      clock.advance(NOTICE_SETTLE_MS);
      const [a, b] = await Promise.all([queueDueNotices(own.deps), queueDueNotices(own.deps)]);
      assert.equal(a + b, 5);
      const recipients = (await queuedEmails(own, p)).map((m) => m.recipient).sort();
      assert.deepEqual(recipients, [
        'p0@example.com',
        'p1@example.com',
        'p2@example.com',
        'p3@example.com',
        'p4@example.com',
      ]);
    });
  });
});
