import type { Kysely } from 'kysely';
import type { EventName } from '../core/events.ts';
import { nowTimestamp, systemClock } from '../core/time.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { DB } from '../db/tables.ts';

const insertEvent = preparedQuery<
  never,
  [programId: number, event: string, payload: string, createdAt: string]
>((db) => db.insertInto('events').values({ program_id: 0, event: '', payload: '', created_at: '' }));

/**
 * Records a domain event in the outbox. Call it with the transaction of the change, so that the
 * event exists exactly when the change does; the delivery worker fans it out to webhooks.
 */
export async function recordEvent(
  trx: Kysely<DB>,
  programId: number,
  event: EventName,
  payload: unknown,
  createdAt: string = nowTimestamp(systemClock),
): Promise<void> {
  await insertEvent(trx, programId, event, JSON.stringify(payload), createdAt);
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
  createdAt: string = nowTimestamp(systemClock),
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
