import type { Kysely } from 'kysely';
import type { EventName } from '../core/events.ts';
import { definePreparedQuery } from '../db/prepared.ts';
import type { DB } from '../db/tables.ts';

const insertEvent = definePreparedQuery<
  never,
  { programId: number; event: string; payload: string; createdAt: string }
>((db, param) =>
  db.insertInto('events').values({
    program_id: param('programId'),
    event: param('event'),
    payload: param('payload'),
    created_at: param('createdAt'),
  }),
);

/**
 * Records a domain event in the outbox. Call it with the transaction of the change, so that the
 * event exists exactly when the change does; the delivery worker fans it out to webhooks.
 */
export async function recordEvent(
  trx: Kysely<DB>,
  programId: number,
  event: EventName,
  payload: unknown,
  createdAt: string,
): Promise<void> {
  await insertEvent(trx, { programId, event, payload: JSON.stringify(payload), createdAt });
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Queues an e-mail in the outbox, in the transaction of the change that causes it. */
export async function queueEmail(
  trx: Kysely<DB>,
  programId: number,
  email: OutgoingEmail,
  createdAt: string,
): Promise<void> {
  await trx
    .insertInto('email_outbox')
    .values({
      program_id: programId,
      recipient: email.to,
      subject: email.subject,
      text_body: email.text,
      html_body: email.html,
      created_at: createdAt,
      next_attempt_at: createdAt,
    })
    .execute();
}
