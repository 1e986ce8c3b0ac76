import type { Insertable, Kysely, Selectable } from 'kysely';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { PortalOwnerKind, PortalSessionsTable, PortalTokensTable } from './portal.tables.ts';
import './portal.tables.ts';

/** Sessions, one-time tokens and failed sign-ins of the portals; every read names the program. */

export async function insertSession(db: Kysely<DB>, row: Insertable<PortalSessionsTable>) {
  await db.insertInto('portal_sessions').values(row).execute();
}

const selectSession = definePreparedQuery<
  Pick<
    Selectable<PortalSessionsTable>,
    'id' | 'owner_kind' | 'owner_id' | 'credential_stamp' | 'approved' | 'expires_at'
  >,
  { programId: number; tokenHash: string }
>((db, param) =>
  db
    .selectFrom('portal_sessions')
    .select(['id', 'owner_kind', 'owner_id', 'credential_stamp', 'approved', 'expires_at'])
    .where('program_id', '=', param('programId'))
    .where('token_hash', '=', param('tokenHash')),
);

/** A session by its token's digest: read on every signed-in page, so compiled once. */
export async function findSession(db: Kysely<DB>, programId: number, tokenHash: string) {
  return (await selectSession(db, { programId, tokenHash }))[0];
}

export async function deleteSession(db: Kysely<DB>, programId: number, tokenHash: string) {
  await db
    .deleteFrom('portal_sessions')
    .where('program_id', '=', programId)
    .where('token_hash', '=', tokenHash)
    .execute();
}

/** Ends every session of an owner (a new password); `except` keeps the one that set it. */
export async function deleteSessionsOf(
  db: Kysely<DB>,
  programId: number,
  owner: { kind: PortalOwnerKind; id: number },
  exceptTokenHash?: string,
) {
  let query = db
    .deleteFrom('portal_sessions')
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id);
  if (exceptTokenHash) query = query.where('token_hash', '!=', exceptTokenHash);
  await query.execute();
}

export async function insertToken(db: Kysely<DB>, row: Insertable<PortalTokensTable>) {
  await db.insertInto('portal_tokens').values(row).execute();
}

/**
 * Marks a token used and answers its owner, only when it was unused and unexpired: one
 * conditional update, so two clicks on one link at once sign in once.
 */
export async function useToken(
  db: Kysely<DB>,
  programId: number,
  tokenHash: string,
  purpose: PortalTokensTable['purpose'],
  now: string,
) {
  return db
    .updateTable('portal_tokens')
    .set({ used_at: now })
    .where('program_id', '=', programId)
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['owner_kind', 'owner_id'])
    .executeTakeFirst();
}

/** Whether a token is still usable, without using it (the reset form shows only for a good link). */
export function findUsableToken(
  db: Kysely<DB>,
  programId: number,
  tokenHash: string,
  purpose: PortalTokensTable['purpose'],
  now: string,
) {
  return db
    .selectFrom('portal_tokens')
    .select(['owner_kind', 'owner_id'])
    .where('program_id', '=', programId)
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export function readFailures(db: Kysely<DB>, programId: number, subjects: readonly string[]) {
  return db
    .selectFrom('portal_sign_in_failures')
    .select(['subject', 'failures', 'last_failed_at'])
    .where('program_id', '=', programId)
    .where('subject', 'in', subjects)
    .execute();
}

/** Counts one failed sign-in of each subject (one atomic upsert each, so instances agree). */
export async function addFailures(
  db: Kysely<DB>,
  programId: number,
  subjects: readonly string[],
  now: string,
) {
  for (const subject of subjects) {
    await db
      .insertInto('portal_sign_in_failures')
      .values({ program_id: programId, subject, failures: 1, last_failed_at: now })
      .onConflict((c) =>
        c.columns(['program_id', 'subject']).doUpdateSet((eb) => ({
          failures: eb('portal_sign_in_failures.failures', '+', 1),
          last_failed_at: now,
        })),
      )
      .execute();
  }
}

export async function clearFailures(db: Kysely<DB>, programId: number, subject: string) {
  await db
    .deleteFrom('portal_sign_in_failures')
    .where('program_id', '=', programId)
    .where('subject', '=', subject)
    .execute();
}

// The worker's sweeps, across programs, a page of rows at a time (neither database has
// DELETE … LIMIT by default); each has an index on its time column (migration 0025). Each
// answers how many rows went.

/** Sessions or one-time tokens expired by `now` (a read takes them as expired too), up to `limit`. */
export async function deleteExpired(
  db: Kysely<DB>,
  table: 'portal_sessions' | 'portal_tokens',
  now: string,
  limit: number,
): Promise<number> {
  const page = db.selectFrom(table).select('id').where('expires_at', '<=', now).limit(limit);
  const result = await db.deleteFrom(table).where('id', 'in', page).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Failed sign-ins last counted before `before`, up to `limit`. */
export async function deleteFailuresBefore(db: Kysely<DB>, before: string, limit: number): Promise<number> {
  const page = db
    .selectFrom('portal_sign_in_failures')
    .select(['program_id', 'subject'])
    .where('last_failed_at', '<', before)
    .limit(limit)
    .$asTuple('program_id', 'subject');
  const result = await db
    .deleteFrom('portal_sign_in_failures')
    .where((eb) => eb(eb.refTuple('program_id', 'subject'), 'in', page))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
