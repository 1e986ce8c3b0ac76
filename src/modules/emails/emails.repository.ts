import type { Kysely } from 'kysely';
import { claimUnlocked } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';

/** `next_attempt_at` of e-mails kept unsent because no SMTP server is configured. */
export const HELD = '9999-12-31T23:59:59.999999Z';

/**
 * Claims due e-mails by moving `next_attempt_at` to the end of a lease and counting the attempt:
 * a worker that dies mid-send leaves the e-mail due again when the lease ends.
 */
export async function claimDueEmails(
  db: Kysely<DB>,
  now: string,
  leaseUntil: string,
  maxAttempts: number,
  limit: number,
) {
  const due = db
    .selectFrom('email_outbox')
    .select('id')
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .where('attempts', '<', maxAttempts)
    .orderBy('next_attempt_at')
    .limit(limit);
  return db
    .updateTable('email_outbox')
    .set((eb) => ({ next_attempt_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', claimUnlocked(db, due))
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .returning(['id', 'program_id', 'recipient', 'subject', 'text_body', 'html_body', 'attempts'])
    .execute();
}

export type ClaimedEmail = Awaited<ReturnType<typeof claimDueEmails>>[number];

export async function programSenders(db: Kysely<DB>, programIds: number[]) {
  if (programIds.length === 0) return [];
  return db
    .selectFrom('programs')
    .select(['id', 'public_id', 'type', 'name', 'website', 'settings', 'logo_digest'])
    .where('id', 'in', programIds)
    .execute();
}

export async function markSent(db: Kysely<DB>, id: number, at: string) {
  await db.updateTable('email_outbox').set({ sent_at: at, last_error: null }).where('id', '=', id).execute();
}

export async function markFailed(db: Kysely<DB>, id: number, error: string, nextAttemptAt: string) {
  await db
    .updateTable('email_outbox')
    .set({ last_error: error, next_attempt_at: nextAttemptAt })
    .where('id', '=', id)
    .execute();
}

/** Keeps claimed e-mails unsent (no SMTP), their attempt not counted. */
export async function hold(db: Kysely<DB>, ids: number[], reason: string) {
  if (ids.length === 0) return;
  await db
    .updateTable('email_outbox')
    .set((eb) => ({ next_attempt_at: HELD, last_error: reason, attempts: eb('attempts', '-', 1) }))
    .where('id', 'in', ids)
    .execute();
}

/** Makes held e-mails due again: SMTP has been configured since they were queued. */
export async function releaseHeld(db: Kysely<DB>, now: string) {
  const result = await db
    .updateTable('email_outbox')
    .set({ next_attempt_at: now, last_error: null })
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '=', HELD)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
