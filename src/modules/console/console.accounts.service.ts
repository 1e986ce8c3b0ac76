import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../../context.ts';
import { renderProblem } from '../../core/messages.ts';
import { hashPassword, passwordProblems, verifyPassword } from '../../core/passwords.ts';
import { FAILURE_MEMORY_MS, FREE_FAILURES, SESSION_DAYS, secondsToWait } from '../../core/portal.ts';
import { formatTimestamp, nowTimestamp } from '../../core/time.ts';
import * as repository from './console.repository.ts';

/**
 * The console's accounts: users with an e-mail and a password (the partner portal's rules: scrypt,
 * the strength rule, a growing wait after failed sign-ins), sessions kept as database rows, and the
 * first user, made by the CLI or by the set-up page while no user exists.
 */

/** How the sign-in page says a wait. */
export { SESSION_DAYS, waitInWords } from '../../core/portal.ts';

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const MAX_TEXT = 255;

export const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface AccountForm {
  email: string;
  password: string;
}

export type AccountErrors = Partial<Record<keyof AccountForm, string>>;

export function emailProblem(email: string): string | undefined {
  if (email === '') return 'Enter the e-mail address.';
  if (email.length > MAX_TEXT || !EMAIL.test(email))
    return 'Enter a valid e-mail address, like name@example.com.';
  return undefined;
}

export function accountProblems(form: AccountForm): AccountErrors {
  const errors: AccountErrors = {};
  const email = emailProblem(form.email);
  if (email) errors.email = email;
  if (form.password === '') errors.password = 'Choose a password.';
  else if (form.password.length > MAX_TEXT) errors.password = `Enter at most ${MAX_TEXT} characters.`;
  else {
    const problems = passwordProblems('password', form.password);
    if (problems.length > 0) errors.password = problems.map(renderProblem).join(' ');
  }
  return errors;
}

export type CreateUserOutcome =
  | { kind: 'invalid'; errors: AccountErrors }
  | { kind: 'taken' }
  | { kind: 'created'; user: { id: number; email: string; operator: boolean } };

/**
 * A console user. An operator (the CLI's and the set-up page's users) owns every program and may
 * create programs; other users see the programs they are members of.
 */
export async function createUser(
  deps: Deps,
  form: AccountForm & { operator: boolean },
): Promise<CreateUserOutcome> {
  const errors = accountProblems(form);
  if (Object.keys(errors).length > 0) return { kind: 'invalid', errors };
  const now = nowTimestamp(deps.clock);
  const row = await repository.insertUser(deps.database.db, {
    email: form.email,
    password_hash: await hashPassword(form.password, deps.config.passwordHashing),
    operator: form.operator,
    created_at: now,
    updated_at: now,
  });
  if (!row) return { kind: 'taken' };
  return { kind: 'created', user: { id: Number(row.id), email: row.email, operator: Boolean(row.operator) } };
}

/** Whether `/admin/setup` is open: no user yet and an admin token to prove who sets it up. */
export async function setupOpen(deps: Deps): Promise<boolean> {
  return deps.config.adminToken !== undefined && !(await repository.anyUserExists(deps.database.db));
}

const sameSecret = (given: string, expected: string) =>
  timingSafeEqual(Buffer.from(digest(given), 'hex'), Buffer.from(digest(expected), 'hex'));

export type SetupOutcome =
  | { kind: 'closed' }
  | { kind: 'invalid'; errors: AccountErrors & { token?: string } }
  | { kind: 'signed_in'; token: string };

/** The first user, from the set-up page: the admin token proves the person runs this server. */
export async function setUp(deps: Deps, form: AccountForm & { token: string }): Promise<SetupOutcome> {
  const { adminToken } = deps.config;
  if (adminToken === undefined || !(await setupOpen(deps))) return { kind: 'closed' };
  if (!sameSecret(form.token, adminToken))
    return { kind: 'invalid', errors: { token: 'This is not the admin token of this server.' } };
  const created = await createUser(deps, { ...form, operator: true });
  // Two set-ups at once: the second finds the address taken or a user there, and the page closes.
  if (created.kind === 'taken') return { kind: 'closed' };
  if (created.kind === 'invalid') return created;
  const user = await repository.findUserById(deps.database.db, created.user.id);
  if (!user) return { kind: 'closed' };
  return { kind: 'signed_in', token: await startSession(deps, user) };
}

export type UserRow = NonNullable<Awaited<ReturnType<typeof repository.findUserById>>>;

/** Changes whenever the password does: a session made before a new password no longer matches. */
const credentialStamp = (row: UserRow) => digest(`console:${row.password_hash}`).slice(0, 32);

export async function startSession(deps: Deps, row: UserRow): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await repository.insertSession(deps.database.db, {
    user_id: Number(row.id),
    token_hash: digest(token),
    credential_stamp: credentialStamp(row),
    created_at: nowTimestamp(deps.clock),
    expires_at: formatTimestamp(deps.clock.nowMicros() + SESSION_DAYS * 24 * 60 * 60e6),
  });
  return token;
}

export interface ConsoleUser {
  id: number;
  email: string;
  operator: boolean;
}

/** The signed-in user of a session cookie, or undefined (expired, unknown, or a changed password). */
export async function currentUser(deps: Deps, token: string | undefined): Promise<ConsoleUser | undefined> {
  if (!token || !TOKEN_SHAPE.test(token)) return undefined;
  const db = deps.database.db;
  const found = await repository.findSessionUser(db, digest(token));
  if (!found) return undefined;
  const { session, user: row } = found;
  if (
    !row ||
    session.expires_at <= nowTimestamp(deps.clock) ||
    session.credential_stamp !== credentialStamp(row)
  ) {
    await repository.deleteSession(db, digest(token));
    return undefined;
  }
  return { id: Number(row.id), email: row.email, operator: Boolean(row.operator) };
}

export async function signOut(deps: Deps, token: string | undefined) {
  if (token && TOKEN_SHAPE.test(token)) await repository.deleteSession(deps.database.db, digest(token));
}

const subjects = (email: string, address: string) => ({
  account: `account:${email.toLowerCase()}`,
  address: `address:${address}`,
});

/** Seconds until this account and address may try again (the longer of the two waits). */
async function waitBeforeSignIn(deps: Deps, email: string, address: string) {
  const names = subjects(email, address);
  const db = deps.database.db;
  const rows = await repository.readFailures(db, [names.account, names.address]);
  const nowMs = deps.clock.nowMicros() / 1000;
  let wait = 0;
  for (const row of rows) {
    const last = Date.parse(row.last_failed_at);
    if (nowMs - last > FAILURE_MEMORY_MS) {
      await repository.clearFailures(db, row.subject);
      continue;
    }
    const free = row.subject === names.account ? FREE_FAILURES.account : FREE_FAILURES.address;
    wait = Math.max(wait, secondsToWait(Number(row.failures), free, last, nowMs));
  }
  return wait;
}

export type SignInOutcome =
  | { kind: 'wrong' }
  | { kind: 'wait'; seconds: number }
  | { kind: 'signed_in'; token: string };

/**
 * Sign-in with e-mail and password. An unknown e-mail and a wrong password answer the same; each
 * failure counts against the account and the address, and past a few, each next try waits longer.
 */
export async function signIn(deps: Deps, form: AccountForm, address: string): Promise<SignInOutcome> {
  if (
    form.email === '' ||
    form.email.length > MAX_TEXT ||
    form.password === '' ||
    form.password.length > MAX_TEXT
  )
    return { kind: 'wrong' };
  const seconds = await waitBeforeSignIn(deps, form.email, address);
  if (seconds > 0) return { kind: 'wait', seconds };
  const db = deps.database.db;
  const names = subjects(form.email, address);
  const row = await repository.findUserByEmail(db, form.email);
  const checked = await verifyPassword(form.password, row?.password_hash, deps.config.passwordHashing);
  if (!row || !checked.valid) {
    await repository.addFailures(db, [names.account, names.address], nowTimestamp(deps.clock));
    return { kind: 'wrong' };
  }
  let current = row;
  if (checked.rehashed) {
    await repository.setPasswordHash(db, Number(row.id), checked.rehashed, nowTimestamp(deps.clock));
    current = { ...row, password_hash: checked.rehashed };
  }
  await repository.clearFailures(db, names.account);
  return { kind: 'signed_in', token: await startSession(deps, current) };
}
