import nodemailer, { type Transporter } from 'nodemailer';
import type { Deps } from '../../context.ts';
import { brandedEmailHtml, brandOf } from '../../core/branding.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { formatTimestamp } from '../../core/time.ts';
import * as repository from './emails.repository.ts';

/** Delays after each failed attempt; the e-mail is given up after the last. */
export const EMAIL_RETRY_DELAYS_MS = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  24 * 3_600_000,
];
export const EMAIL_MAX_ATTEMPTS = EMAIL_RETRY_DELAYS_MS.length + 1;
const LEASE_MS = 5 * 60_000;
const NO_SMTP = 'SMTP_URL is not set: the e-mail was logged and kept here, unsent.';

/**
 * Sends the e-mail outbox through SMTP (nodemailer) when SMTP_URL is set, with the program's
 * name as sender name; the sender address is SMTP_URL's `from` parameter, else `no-reply@` the
 * program's website host. Without SMTP_URL each e-mail is logged once and kept in the outbox
 * unsent; it goes out once a worker runs with SMTP_URL.
 */
export class EmailSender {
  readonly #deps: Deps;
  readonly #transport: Transporter | undefined;
  readonly #from: string | undefined;
  #released = false;

  constructor(deps: Deps) {
    this.#deps = deps;
    if (deps.config.smtpUrl) {
      const url = new URL(deps.config.smtpUrl);
      this.#from = url.searchParams.get('from') ?? undefined;
      url.searchParams.delete('from');
      // A pool of a few connections, reused: a batch is not one SMTP connection per e-mail.
      if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
      this.#transport = nodemailer.createTransport(url.toString());
    }
  }

  #now(offsetMs = 0) {
    return formatTimestamp(this.#deps.clock.nowMicros() + offsetMs * 1000);
  }

  /** Sends (or, without SMTP, logs and holds) the due e-mails; returns how many it handled. */
  async runOnce(limit = 50): Promise<number> {
    const { db } = this.#deps.database;
    if (this.#transport && !this.#released) {
      this.#released = true;
      const released = await repository.releaseHeld(db, this.#now());
      if (released > 0)
        this.#deps.log.info({ emails: released }, 'sending e-mails held while SMTP_URL was unset');
    }
    const claimed = await repository.claimDueEmails(
      db,
      this.#now(),
      this.#now(LEASE_MS),
      EMAIL_MAX_ATTEMPTS,
      limit,
    );
    if (claimed.length === 0) return 0;
    const transport = this.#transport;
    if (!transport) {
      for (const email of claimed) {
        this.#deps.log.info(
          {
            email: {
              id: email.id,
              program: email.program_id,
              to: email.recipient,
              subject: email.subject,
              text: email.text_body,
            },
          },
          'e-mail not sent (SMTP_URL is not set)',
        );
      }
      await repository.hold(
        db,
        claimed.map((e) => e.id),
        NO_SMTP,
      );
      return claimed.length;
    }
    const senders = new Map(
      (
        await repository.programSenders(db, [
          // An e-mail of no program (a console user's own) is sent as Vouch.
          ...new Set(claimed.flatMap((e) => (e.program_id === null ? [] : [e.program_id]))),
        ])
      ).map((p) => [p.id, p]),
    );
    await Promise.all(
      claimed.map(async (email) => {
        const program = email.program_id === null ? undefined : senders.get(email.program_id);
        try {
          await transport.sendMail({
            from: { name: program?.name ?? 'Vouch', address: this.#from ?? defaultSender(program?.website) },
            to: email.recipient,
            subject: email.subject,
            text: email.text_body,
            // In the program's brand as it is when sent (logo, colour, terms).
            html: program
              ? brandedEmailHtml(
                  brandOf(program, programSettingsOf(program.type, program.settings)),
                  email.html_body,
                  this.#deps.config.publicUrl,
                )
              : email.html_body,
          });
          await repository.markSent(db, email.id, this.#now());
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          const delay = EMAIL_RETRY_DELAYS_MS[email.attempts - 1];
          this.#deps.log.warn(
            { email: email.id, attempts: email.attempts, error: message },
            'e-mail not sent',
          );
          await repository.markFailed(db, email.id, message, this.#now(delay ?? 0));
        }
      }),
    );
    return claimed.length;
  }

  close(): void {
    this.#transport?.close();
  }
}

function defaultSender(website: string | null | undefined): string {
  try {
    if (website) return `no-reply@${new URL(website).hostname.replace(/^www\./, '')}`;
  } catch {}
  return 'no-reply@localhost';
}
