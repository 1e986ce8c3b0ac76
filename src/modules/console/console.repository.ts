import { type Insertable, type Kysely, sql } from 'kysely';
import type { ConsoleRole } from '../../core/console-roles.ts';
import type { DB } from '../../db/tables.ts';
import type { ConsoleSessionsTable, ConsoleUsersTable } from './console.tables.ts';
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

export function findSession(db: Kysely<DB>, tokenHash: string) {
  return db
    .selectFrom('console_sessions')
    .select(['user_id', 'credential_stamp', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
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
