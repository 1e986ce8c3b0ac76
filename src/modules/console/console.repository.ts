import { type Insertable, type Kysely, sql } from 'kysely';
import type { ConsoleRole } from '../../core/console-roles.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { ConsoleInvitesTable, ConsoleSessionsTable, ConsoleUsersTable } from './console.tables.ts';
import './console.tables.ts';

/** Users, sessions, memberships and failed sign-ins of the owner console. */

export async function anyUserExists(db: Kysely<DB>): Promise<boolean> {
  return (await db.selectFrom('console_users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** A new user, or undefined when the address (in any case) has an account already. */
export async function insertUser(db: Kysely<DB>, row: Insertable<ConsoleUsersTable>) {
  return db
    .insertInto('console_users')
    .values(row)
    .onConflict((c) => c.doNothing())
    .returning(['id', 'email', 'operator'])
    .executeTakeFirst();
}

const userColumns = ['id', 'email', 'password_hash', 'operator'] as const;

export function findUserByEmail(db: Kysely<DB>, email: string) {
  return db
    .selectFrom('console_users')
    .select(userColumns)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

export function findUserById(db: Kysely<DB>, id: number) {
  return db.selectFrom('console_users').select(userColumns).where('id', '=', id).executeTakeFirst();
}

export async function setPasswordHash(db: Kysely<DB>, id: number, passwordHash: string, now: string) {
  await db
    .updateTable('console_users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function insertSession(db: Kysely<DB>, row: Insertable<ConsoleSessionsTable>) {
  await db.insertInto('console_sessions').values(row).execute();
}

type SessionUserRow = {
  user_id: number;
  credential_stamp: string;
  expires_at: string;
  id: number | null;
  email: string | null;
  password_hash: string | null;
  operator: boolean | number | null;
};

/** Every console page reads its session: compiled once, with its user in the same statement. */
const selectSessionUser = definePreparedQuery<SessionUserRow, { tokenHash: string }>((db, param) =>
  db
    .selectFrom('console_sessions')
    .leftJoin('console_users', 'console_users.id', 'console_sessions.user_id')
    .select([
      'console_sessions.user_id',
      'console_sessions.credential_stamp',
      'console_sessions.expires_at',
      'console_users.id',
      'console_users.email',
      'console_users.password_hash',
      'console_users.operator',
    ])
    .where('console_sessions.token_hash', '=', param('tokenHash')),
);

/** A session and its user (undefined when the user is gone), or undefined when there is no session. */
export async function findSessionUser(db: Kysely<DB>, tokenHash: string) {
  const [row] = await selectSessionUser(db, { tokenHash });
  if (!row) return undefined;
  const { id, email, password_hash, operator } = row;
  const user =
    id === null || email === null || password_hash === null || operator === null
      ? undefined
      : { id, email, password_hash, operator };
  return { session: row, user };
}

export async function deleteSession(db: Kysely<DB>, tokenHash: string) {
  await db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Sets a user's role in a program (adding the membership or changing its role). */
export async function putMember(
  db: Kysely<DB>,
  member: { programId: number; userId: number; role: ConsoleRole; now: string },
) {
  await db
    .insertInto('console_members')
    .values({
      program_id: member.programId,
      user_id: member.userId,
      role: member.role,
      created_at: member.now,
    })
    .onConflict((c) => c.columns(['program_id', 'user_id']).doUpdateSet({ role: member.role }))
    .execute();
}

/** The programs a user is a member of, oldest membership first, with the role in each. */
export function membershipsOf(db: Kysely<DB>, userId: number) {
  return db
    .selectFrom('console_members')
    .select(['program_id', 'role'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('program_id')
    .execute();
}

export async function findRole(db: Kysely<DB>, programId: number, userId: number) {
  const row = await db
    .selectFrom('console_members')
    .select('role')
    .where('program_id', '=', programId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

export function readFailures(db: Kysely<DB>, subjects: readonly string[]) {
  return db
    .selectFrom('console_sign_in_failures')
    .select(['subject', 'failures', 'last_failed_at'])
    .where('subject', 'in', subjects)
    .execute();
}

/** Counts one failed sign-in of each subject (one atomic upsert each, so instances agree). */
export async function addFailures(db: Kysely<DB>, subjects: readonly string[], now: string) {
  for (const subject of subjects)
    await db
      .insertInto('console_sign_in_failures')
      .values({ subject, failures: 1, last_failed_at: now })
      .onConflict((c) =>
        c.column('subject').doUpdateSet((eb) => ({
          failures: eb('console_sign_in_failures.failures', '+', 1),
          last_failed_at: now,
        })),
      )
      .execute();
}

export async function clearFailures(db: Kysely<DB>, subject: string) {
  await db.deleteFrom('console_sign_in_failures').where('subject', '=', subject).execute();
}

/** The team of a program: each member's user id, e-mail and role, oldest first. */
export function membersOf(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('console_members')
    .innerJoin('console_users', 'console_users.id', 'console_members.user_id')
    .select(['console_members.user_id', 'console_users.email', 'console_members.role'])
    .where('console_members.program_id', '=', programId)
    .orderBy('console_members.created_at')
    .orderBy('console_members.user_id')
    .execute();
}

/** Takes a user off a program's team; answers whether there was such a member. */
export async function deleteMember(db: Kysely<DB>, programId: number, userId: number) {
  const result = await db
    .deleteFrom('console_members')
    .where('program_id', '=', programId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Ends every session of a user (taken off a team, or a new password). */
export async function deleteSessionsOf(db: Kysely<DB>, userId: number) {
  await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
}

export async function insertInvite(db: Kysely<DB>, row: Insertable<ConsoleInvitesTable>) {
  await db.insertInto('console_invites').values(row).execute();
}

/** An invitation that can still be used, without using it (the page shows its form only then). */
export function findUsableInvite(db: Kysely<DB>, tokenHash: string, now: string) {
  return db
    .selectFrom('console_invites')
    .select(['id', 'program_id', 'email', 'role'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Marks an invitation used, only if it still was usable: two clicks at once accept it once. */
export async function useInvite(db: Kysely<DB>, id: number, now: string) {
  const result = await db
    .updateTable('console_invites')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The invitations of a program not used yet and not expired, newest first. */
export function openInvites(db: Kysely<DB>, programId: number, now: string) {
  return db
    .selectFrom('console_invites')
    .select(['id', 'email', 'role', 'expires_at'])
    .where('program_id', '=', programId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
}

/** The operators' addresses (at most 50: notices to a server's operators, not a mailing list). */
export function operators(db: Kysely<DB>) {
  return db
    .selectFrom('console_users')
    .select('email')
    .where('operator', '=', true)
    .orderBy('id')
    .limit(50)
    .execute();
}

export async function insertPasswordReset(
  db: Kysely<DB>,
  row: { user_id: number; token_hash: string; created_at: string; expires_at: string },
) {
  await db.insertInto('console_password_resets').values(row).execute();
}

/** A reset link that can still be used, without using it. */
export function findUsableReset(db: Kysely<DB>, tokenHash: string, now: string) {
  return db
    .selectFrom('console_password_resets')
    .select(['id', 'user_id'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Uses a reset link once: answers its user only when it was still usable (two clicks, one reset). */
export function useReset(db: Kysely<DB>, tokenHash: string, now: string) {
  return db
    .updateTable('console_password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
}
