import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachDatabase, ManualClock } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { startSmtp } from '../../../test/smtp-sink.ts';
import type { Deps } from '../../context.ts';
import { nowTimestamp } from '../../core/time.ts';
import { queueEmail } from '../../outbox/outbox.ts';
import { HELD } from './emails.repository.ts';
import { EMAIL_RETRY_DELAYS_MS, EmailSender } from './emails.sender.ts';

const email = (to: string) => ({
  to,
  subject: 'You are invited',
  text: 'Join our partner program: https://shop.example.com/join',
  html: '<p>Join our <b>partner program</b></p>',
});

const clock = new ManualClock();
/** The same deps with SMTP_URL set (the SMTP server's port is known only once it listens). */
const withSmtp = (deps: Deps, smtpUrl: string): Deps => ({ ...deps, config: { ...deps.config, smtpUrl } });

let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp(['bounce@example.com']);
});
after(() => smtp.close());

describeEachDatabase(
  'e-mail outbox',
  (server) => {
    test('without SMTP_URL e-mails are logged and kept unsent; a worker with SMTP_URL sends them later', async () => {
      const p = await server().newProgram('affiliate', {
        name: 'Acme Partners',
        website: 'https://www.acme.example',
      });
      const db = server().deps.database.db;
      await queueEmail(db, p.id, email('ann@example.com'), nowTimestamp(clock));
      const logOnly = new EmailSender(server().deps);
      assert.equal(await logOnly.runOnce(), 1);
      assert.equal(await logOnly.runOnce(), 0, 'logged once');
      const held = await db
        .selectFrom('email_outbox')
        .selectAll()
        .where('program_id', '=', p.id)
        .executeTakeFirstOrThrow();
      assert.equal(held.sent_at, null);
      assert.equal(held.next_attempt_at, HELD);
      assert.match(held.last_error ?? '', /SMTP_URL is not set/);

      const sender = new EmailSender(withSmtp(server().deps, `smtp://127.0.0.1:${smtp.port}`));
      try {
        assert.equal(await sender.runOnce(), 1);
        const mail = smtp.mails.find((m) => m.to.includes('ann@example.com'));
        assert.ok(mail);
        assert.equal(mail.from, 'no-reply@acme.example');
        assert.match(mail.raw, /^From: "?Acme Partners"? <no-reply@acme\.example>/m);
        assert.match(mail.raw, /^Subject: You are invited/m);
        assert.match(mail.raw, /Content-Type: text\/plain/);
        assert.match(mail.raw, /Content-Type: text\/html/);
        const sent = await db
          .selectFrom('email_outbox')
          .selectAll()
          .where('id', '=', held.id)
          .executeTakeFirstOrThrow();
        assert.ok(sent.sent_at);
        assert.equal(sent.attempts, 1);
      } finally {
        sender.close();
      }
    });

    test('sends with the program name and the configured sender; a refused one is retried later', async () => {
      const p = await server().newProgram('referral', { name: 'Friends of Acme' });
      const db = server().deps.database.db;
      await queueEmail(db, p.id, email('bob@example.com'), nowTimestamp(clock));
      await queueEmail(db, p.id, email('bounce@example.com'), nowTimestamp(clock));
      const sender = new EmailSender(
        withSmtp(server().deps, `smtp://127.0.0.1:${smtp.port}?from=rewards@acme.example`),
      );
      try {
        assert.equal(await sender.runOnce(), 2);
        const mail = smtp.mails.find((m) => m.to.includes('bob@example.com'));
        assert.equal(mail?.from, 'rewards@acme.example');
        assert.match(mail?.raw ?? '', /^From: "?Friends of Acme"? <rewards@acme\.example>/m);
        const failed = await db
          .selectFrom('email_outbox')
          .selectAll()
          .where('recipient', '=', 'bounce@example.com')
          .executeTakeFirstOrThrow();
        assert.equal(failed.sent_at, null);
        assert.match(failed.last_error ?? '', /mailbox unavailable/);
        assert.equal(await sender.runOnce(), 0, 'not before its retry time');
        clock.advance(itemAt(EMAIL_RETRY_DELAYS_MS));
        assert.equal(await sender.runOnce(), 1);
        const again = await db
          .selectFrom('email_outbox')
          .select('attempts')
          .where('id', '=', failed.id)
          .executeTakeFirstOrThrow();
        assert.equal(again.attempts, 2);
      } finally {
        sender.close();
      }
    });
  },
  { clock },
);
