import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Deps } from '../../context.ts';
import { type ConsoleRole, isConsoleRole, mayManageTeam } from '../../core/console-roles.ts';
import { hashPassword, verifyPassword } from '../../core/passwords.ts';
import { formatTimestamp, nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { queueEmail } from '../../outbox/outbox.ts';
import { escapeText } from '../../pages/rendered.tsx';
import { getProgramOrThrow } from '../program/program.service.ts';
import {
  accountProblems,
  type ConsoleUser,
  digest,
  emailProblem,
  startSession,
  TOKEN_SHAPE,
} from './console.accounts.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';
import * as repository from './console.repository.ts';

/** A program's team: its members and roles, invitations by e-mail, and taking members off. */

export const INVITE_DAYS = 7;

export async function teamOf(program: ConsoleProgram) {
  const db = program.ctx.database.db;
  const [members, invites] = await Promise.all([
    repository.membersOf(db, program.ctx.program.id),
    repository.openInvites(db, program.ctx.program.id, nowTimestamp(program.ctx.clock)),
  ]);
  return {
    members: members.map((m) => ({ userId: Number(m.user_id), email: m.email, role: m.role })),
    invites: invites.map((i) => ({ email: i.email, role: i.role, expires: i.expires_at.slice(0, 10) })),
  };
}

export type InviteErrors = Partial<Record<'email' | 'role', string>>;

/**
 * Invites someone to the program's team: a one-time link valid for seven days, e-mailed through
 * the outbox in the transaction that stores it. Only owners invite.
 */
export async function invite(
  program: ConsoleProgram,
  user: ConsoleUser,
  form: { email: string; role: string },
  links: { baseUrl: string },
): Promise<{ kind: 'invalid'; errors: InviteErrors } | { kind: 'sent' }> {
  const errors: InviteErrors = {};
  const email = emailProblem(form.email);
  if (email) errors.email = email;
  if (!isConsoleRole(form.role)) errors.role = 'Choose a role.';
  if (Object.keys(errors).length > 0 || !isConsoleRole(form.role)) return { kind: 'invalid', errors };
  if (!mayManageTeam(program.role)) return { kind: 'invalid', errors: { role: 'Only owners invite.' } };
  const { ctx } = program;
  const token = randomBytes(32).toString('base64url');
  const now = nowTimestamp(ctx.clock);
  const url = `${links.baseUrl}/admin/invite/${token}`;
  const role = form.role;
  await ctx.database.db.transaction().execute(async (trx) => {
    await repository.insertInvite(trx, {
      program_id: ctx.program.id,
      email: form.email,
      role,
      token_hash: digest(token),
      invited_by: user.id,
      created_at: now,
      expires_at: formatTimestamp(ctx.clock.nowMicros() + INVITE_DAYS * 24 * 60 * 60e6),
    });
    const what = `${user.email} invited you to run ${program.name} on Vouch as ${articleRole(role)}.`;
    const closing = `The link works once, for ${INVITE_DAYS} days.`;
    await queueEmail(
      trx,
      ctx.program.id,
      {
        to: form.email,
        subject: `You are invited to ${program.name}`,
        text: `Hello,\n\n${what}\n\nAccept the invitation:\n\n${url}\n\n${closing}\n`,
        html: `<p>Hello,</p><p>${escapeText(what)}</p><p><a href="${escapeText(url)}">Accept the invitation</a></p><p>${closing}</p>`,
      },
      now,
    );
  });
  await logActivity(program, 'team.invite', {
    subject: form.email,
    changes: { role: { before: null, after: role } },
  });
  return { kind: 'sent' };
}

const articleRole = (role: ConsoleRole) =>
  role === 'owner' ? 'an owner' : role === 'admin' ? 'an admin' : 'a viewer';

/** What an invitation link's page shows, while the link can be used. */
export async function readInvite(deps: Deps, token: string) {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const db = deps.database.db;
  const found = await repository.findUsableInvite(db, digest(token), nowTimestamp(deps.clock));
  if (!found) return undefined;
  const program = await getProgramOrThrow(deps, String(found.program_id));
  const existing = await repository.findUserByEmail(db, found.email);
  return { ...found, programName: program.name, hasAccount: existing !== undefined };
}

export type AcceptOutcome =
  | { kind: 'gone' }
  | { kind: 'wrong_password' }
  | { kind: 'invalid'; error: string }
  | { kind: 'signed_in'; token: string; programPublicId: string };

/**
 * Accepts an invitation: someone with an account proves it with its password, someone new chooses
 * one; either way they join the team in the invited role and are signed in.
 */
export async function acceptInvite(deps: Deps, token: string, password: string): Promise<AcceptOutcome> {
  const invitation = await readInvite(deps, token);
  if (!invitation) return { kind: 'gone' };
  const db = deps.database.db;
  const now = nowTimestamp(deps.clock);
  let user = await repository.findUserByEmail(db, invitation.email);
  if (user) {
    if (!(await verifyPassword(password, user.password_hash, deps.config.passwordHashing)).valid)
      return { kind: 'wrong_password' };
  } else {
    const problem = accountProblems({ email: invitation.email, password }).password;
    if (problem) return { kind: 'invalid', error: problem };
    const created = await repository.insertUser(db, {
      email: invitation.email,
      password_hash: await hashPassword(password, deps.config.passwordHashing),
      operator: false,
      created_at: now,
      updated_at: now,
    });
    user = created
      ? await repository.findUserById(db, Number(created.id))
      : await repository.findUserByEmail(db, invitation.email);
    if (!user) return { kind: 'gone' };
  }
  if (!(await repository.useInvite(db, Number(invitation.id), now))) return { kind: 'gone' };
  await repository.putMember(db, {
    programId: Number(invitation.program_id),
    userId: Number(user.id),
    role: invitation.role,
    now,
  });
  const program = await getProgramOrThrow(deps, String(invitation.program_id));
  return { kind: 'signed_in', token: await startSession(deps, user), programPublicId: program.public_id };
}

/**
 * Takes a member off the team and signs them out everywhere. The last owner stays: a program
 * always has someone who can manage its team (operators aside).
 */
export async function removeMember(program: ConsoleProgram, userId: number) {
  if (!mayManageTeam(program.role)) return 'forbidden' as const;
  const db = program.ctx.database.db;
  const members = await repository.membersOf(db, program.ctx.program.id);
  const target = members.find((m) => Number(m.user_id) === userId);
  if (!target) return 'missing' as const;
  const owners = members.filter((m) => m.role === 'owner');
  if (target.role === 'owner' && owners.length === 1) return 'last_owner' as const;
  await repository.deleteMember(db, program.ctx.program.id, userId);
  await repository.deleteSessionsOf(db, userId);
  await logActivity(program, 'team.remove', {
    subject: target.email,
    changes: { role: { before: target.role, after: null } },
  });
  return 'removed' as const;
}

/**
 * Whom a program's notices go to: its owners in the console, or, when it has none, the operators
 * (who own every program). Empty while the console has no users.
 */
export async function ownerEmailsOf(db: Kysely<DB>, programId: number): Promise<string[]> {
  const owners = (await repository.membersOf(db, programId)).filter((m) => m.role === 'owner');
  if (owners.length > 0) return owners.map((m) => m.email);
  return (await repository.operators(db)).map((u) => u.email);
}
