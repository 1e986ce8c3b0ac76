import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Deps } from '../src/context.ts';
import { EmailSender } from '../src/modules/emails/emails.sender.ts';

export interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/** An in-process SMTP server that keeps what it receives; `reject` refuses these recipients. */
export async function startSmtp(reject: string[] = []) {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (reject.includes(address.address)) return callback(new Error('mailbox unavailable'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export type SmtpSink = Awaited<ReturnType<typeof startSmtp>>;

/**
 * Delivers the outbox to the sink and answers the last mail sent to `to`, with quoted-printable
 * line breaks and `=` undone, so links in it read whole.
 */
export async function lastMailTo(deps: Deps, sink: SmtpSink, to: string): Promise<string> {
  const sender = new EmailSender({
    ...deps,
    config: { ...deps.config, smtpUrl: `smtp://127.0.0.1:${sink.port}` },
  });
  try {
    await sender.runOnce();
  } finally {
    // The pool's connections would otherwise stay open, and the sink's close waits for them (30 s).
    sender.close();
  }
  const mail = sink.mails.filter((m) => m.to.includes(to)).at(-1);
  assert.ok(mail, `a mail to ${to}`);
  return mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}
