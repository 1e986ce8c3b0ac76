import { type Kysely, sql } from 'kysely';
import type { EventName } from '../core/events.ts';
import { type BoundStatement, definePreparedQuery, type PreparedQuery } from '../db/prepared.ts';
import type { DB } from '../db/tables.ts';

/**
 * An event's `dispatched_at` as it is written: its own time when its program has no active
 * webhook, so the delivery worker never reads nor marks it (most programs have none: a sale's
 * events then cost one insert each, not an insert, a look-up and an update); null, to be
 * dispatched, otherwise. A webhook is sent the events written while it is active.
 */
const dispatchedAtOf = (programId: unknown, createdAt: unknown) =>
  sql<
    string | null
  >`case when exists (select 1 from webhooks where webhooks.program_id = ${programId} and webhooks.is_active = ${sql.lit(true)}) then null else ${createdAt} end`;

const insertEvent = definePreparedQuery<
  never,
  { programId: number; event: string; payload: string; createdAt: string }
>((db, param) =>
  db.insertInto('events').values({
    program_id: param('programId'),
    event: param('event'),
    payload: param('payload'),
    created_at: param('createdAt'),
    dispatched_at: dispatchedAtOf(param('programId'), param('createdAt')),
  }),
);

/** Inserts of 1 … n events in one statement, compiled once per row count. */
const insertEventsOf = new Map<number, PreparedQuery<never, Record<string, unknown>>>();

function insertEvents(count: number) {
  let query = insertEventsOf.get(count);
  if (!query) {
    query = definePreparedQuery<never, Record<string, unknown>>((db, param) =>
      db.insertInto('events').values(
        Array.from({ length: count }, (_, i) => ({
          program_id: param('programId') as number,
          event: param(`event${i}`) as string,
          payload: param(`payload${i}`) as string,
          created_at: param(`createdAt${i}`) as string,
          dispatched_at: dispatchedAtOf(param('programId'), param(`createdAt${i}`)),
        })),
      ),
    );
    insertEventsOf.set(count, query);
  }
  return query;
}

export interface DomainEvent {
  event: EventName;
  payload: unknown;
  createdAt: string;
}

/**
 * The insert of `recordEvent` for several events, not run: to go with the change's other writes
 * in one statement (db/together.ts). Empty when there is no event.
 */
export function eventsStatement(
  db: Kysely<DB>,
  programId: number,
  events: readonly DomainEvent[],
): BoundStatement[] {
  if (events.length === 0) return [];
  const params: Record<string, unknown> = { programId };
  events.forEach((event, i) => {
    params[`event${i}`] = event.event;
    params[`payload${i}`] = JSON.stringify(event.payload);
    params[`createdAt${i}`] = event.createdAt;
  });
  return [insertEvents(events.length).statement(db, params)];
}

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

// Rows per multi-row insert: well under either database's limit on a statement's parameters.
const ROWS_PER_INSERT = 500;

/**
 * Records one event per payload, all of one name, in as few statements as the databases allow
 * (a payout marked paid records one `commission.paid` per commission: tens of thousands).
 */
export async function recordEvents(
  trx: Kysely<DB>,
  programId: number,
  event: EventName,
  payloads: readonly unknown[],
  createdAt: string,
): Promise<void> {
  for (let i = 0; i < payloads.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto('events')
      .values(
        payloads.slice(i, i + ROWS_PER_INSERT).map((payload) => ({
          program_id: programId,
          event,
          payload: JSON.stringify(payload),
          created_at: createdAt,
          dispatched_at: dispatchedAtOf(programId, createdAt),
        })),
      )
      .execute();
}

/** An e-mail's outbox row, due at once. */
const emailRow = (programId: number, email: OutgoingEmail, createdAt: string) => ({
  program_id: programId,
  recipient: email.to,
  subject: email.subject,
  text_body: email.text,
  html_body: email.html,
  created_at: createdAt,
  next_attempt_at: createdAt,
});

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
    .values(emailRow(programId, email, createdAt))
    .execute();
}

/** Queues several e-mails, in as few statements as the databases allow. */
export async function queueEmails(
  trx: Kysely<DB>,
  programId: number,
  emails: readonly OutgoingEmail[],
  createdAt: string,
): Promise<void> {
  for (let i = 0; i < emails.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto('email_outbox')
      .values(emails.slice(i, i + ROWS_PER_INSERT).map((email) => emailRow(programId, email, createdAt)))
      .execute();
}
