import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { EventName } from '../core/events.ts';
import { type BoundStatement, definePreparedQuery, type PreparedQuery } from '../db/prepared.ts';
import type { DB } from '../db/tables.ts';

/** One of the program's active webhooks, if any: the one test of whether its events are stored. */
function activeWebhookOf(db: Kysely<DB>, programId: unknown) {
  return db
    .selectFrom('webhooks')
    .select('program_id')
    .where('program_id', '=', programId as number)
    .where('is_active', '=', sql.lit(true))
    .limit(1);
}

/**
 * An event exists to be sent to webhooks, and nothing else reads it: it is written only while
 * its program has an active webhook (most programs have none, and a sale writes two events), in
 * the same statement, so the check costs no round trip. A webhook is sent the events written
 * while it is active. The rows go in as a VALUES list (`column1`… on both databases), joined to
 * one of the program's active webhooks: none, no row.
 */
function insertWhileSubscribed(
  db: Kysely<DB>,
  programId: unknown,
  rows: readonly { event: unknown; payload: unknown; createdAt: unknown }[],
) {
  const values = sql.join(rows.map((row) => sql`(${row.event}, ${row.payload}, ${row.createdAt})`));
  return db
    .insertInto('events')
    .columns(['program_id', 'event', 'payload', 'created_at'])
    .expression(
      db
        .selectFrom(sql<{ column1: string; column2: string; column3: string }>`(values ${values})`.as('v'))
        .innerJoin(activeWebhookOf(db, programId).as('w'), (join) => join.onTrue())
        .select(['w.program_id', 'v.column1', 'v.column2', 'v.column3']),
    );
}

const insertEvent = definePreparedQuery<
  never,
  { programId: number; event: string; payload: string; createdAt: string }
>((db, param) =>
  insertWhileSubscribed(db, param('programId'), [
    { event: param('event'), payload: param('payload'), createdAt: param('createdAt') },
  ]),
);

/** Inserts of 1 … n events in one statement, compiled once per row count. */
const insertEventsOf = new Map<number, PreparedQuery<never, Record<string, unknown>>>();

function insertEvents(count: number) {
  let query = insertEventsOf.get(count);
  if (!query) {
    query = definePreparedQuery<never, Record<string, unknown>>((db, param) =>
      insertWhileSubscribed(
        db,
        param('programId'),
        Array.from({ length: count }, (_, i) => ({
          event: param(`event${i}`),
          payload: param(`payload${i}`),
          createdAt: param(`createdAt${i}`),
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

/**
 * Whether `programId` has an active webhook, as an SQL condition: a sale read with the rest of
 * its statement builds no event when it has none (most programs), and then writes with
 * `subscriberStatement` as a guard that none appeared meanwhile.
 */
export function subscribedCondition(db: Kysely<DB>, programId: unknown): RawBuilder<boolean> {
  return sql<boolean>`exists (${activeWebhookOf(db, programId)})`;
}

const selectSubscriber = definePreparedQuery<{ program_id: number }, { programId: number }>((db, param) =>
  activeWebhookOf(db, param('programId')),
);

/** The program's active webhook, as a statement not run: what a write decided without events checks is still absent. */
export function subscriberStatement(db: Kysely<DB>, programId: number): BoundStatement {
  return selectSubscriber.statement(db, { programId });
}

/**
 * Whether the program's events are stored now (it has an active webhook): a change that would
 * read thousands of rows only to describe them in events asks first.
 */
export async function eventsAreStored(db: Kysely<DB>, programId: number): Promise<boolean> {
  return (await selectSubscriber(db, { programId })).length > 0;
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
    await insertWhileSubscribed(
      trx,
      programId,
      payloads.slice(i, i + ROWS_PER_INSERT).map((payload) => ({
        event,
        payload: JSON.stringify(payload),
        createdAt,
      })),
    ).execute();
}

/** An e-mail's outbox row, due at once. */
const emailRow = (programId: number | null, email: OutgoingEmail, createdAt: string) => ({
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

/** Queues an e-mail of no program (a console user's own), in the caller's transaction. */
export async function queueServerEmail(
  trx: Kysely<DB>,
  email: OutgoingEmail,
  createdAt: string,
): Promise<void> {
  await trx
    .insertInto('email_outbox')
    .values(emailRow(null, email, createdAt))
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
