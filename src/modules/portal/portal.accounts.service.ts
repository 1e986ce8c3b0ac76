import { AppError } from '../../core/errors.ts';
import { renderProblem } from '../../core/messages.ts';
import { FAILURE_MEMORY_MS, FREE_FAILURES, secondsToWait } from '../../core/portal.ts';
import { nowTimestamp } from '../../core/time.ts';
import {
  createPartner,
  findPartnerByEmail,
  findPartnerById,
  type PartnerRow,
  passwordProblems,
  signInPartner,
  updatePartner,
} from '../partners/partners.service.ts';
import * as repository from './portal.repository.ts';
import { digest, mailOneTimeLink, oneTimeLinkUsable, TOKEN_SHAPE } from './portal.secrets.ts';
import {
  type LinkBase,
  type PortalProgram,
  portalUrl,
  type SignedInPartner,
  startSession,
} from './portal.service.ts';

export const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export const MAX_TEXT = 255;

export interface SignUpForm {
  name: string;
  surname: string;
  email: string;
  password: string;
  terms: boolean;
}

export type SignUpErrors = Partial<Record<keyof SignUpForm, string>>;

export function emailProblem(email: string): string | undefined {
  if (email === '') return 'Enter your e-mail address.';
  if (email.length > MAX_TEXT || !EMAIL.test(email))
    return 'Enter a valid e-mail address, like name@example.com.';
  return undefined;
}

/**
 * A partner from the sign-up form, created exactly as `POST /v1/partners` creates one (the
 * spec's password rule, `partner.created`); signed in at once, pending review when the program
 * approves partners by hand.
 */
export async function signUp(
  portal: PortalProgram,
  form: SignUpForm,
): Promise<
  { kind: 'invalid'; errors: SignUpErrors } | { kind: 'taken' } | { kind: 'signed_up'; token: string }
> {
  const errors: SignUpErrors = {};
  if (form.name === '') errors.name = 'Enter your first name.';
  else if (form.name.length > MAX_TEXT) errors.name = `Enter at most ${MAX_TEXT} characters.`;
  if (form.surname.length > MAX_TEXT) errors.surname = `Enter at most ${MAX_TEXT} characters.`;
  const email = emailProblem(form.email);
  if (email) errors.email = email;
  if (form.password === '') errors.password = 'Choose a password.';
  else if (form.password.length > MAX_TEXT) errors.password = `Enter at most ${MAX_TEXT} characters.`;
  if (!form.terms) errors.terms = 'Accept the terms to join the program.';
  if (Object.keys(errors).length > 0) return { kind: 'invalid', errors };
  try {
    const created = await createPartner(portal.ctx, {
      email: form.email,
      name: form.name,
      ...(form.surname ? { surname: form.surname } : {}),
      password: form.password,
      tos: true,
      approved: portal.autoApprove,
    });
    const row = await findPartnerByEmail(portal.ctx.database.db, portal.ctx.program.id, created.email);
    if (!row) throw new Error('the new partner was not found');
    return { kind: 'signed_up', token: await startSession(portal, row) };
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 422) throw error;
    if (error.problemOn('email')) return { kind: 'taken' };
    const password = error.problems.filter((found) => found.field === 'password');
    if (password.length > 0)
      return { kind: 'invalid', errors: { password: password.map(renderProblem).join(' ') } };
    throw error;
  }
}

export const subjects = (email: string, address: string) => ({
  account: `account:${email.toLowerCase()}`,
  address: `address:${address}`,
});

/** Seconds until this account and address may try again (the longer of the two waits). */
export async function waitBeforeSignIn(portal: PortalProgram, email: string, address: string) {
  const { ctx } = portal;
  const names = subjects(email, address);
  const rows = await repository.readFailures(ctx.database.db, ctx.program.id, [names.account, names.address]);
  const nowMs = ctx.clock.nowMicros() / 1000;
  let wait = 0;
  for (const row of rows) {
    const last = Date.parse(row.last_failed_at);
    if (nowMs - last > FAILURE_MEMORY_MS) {
      await repository.clearFailures(ctx.database.db, ctx.program.id, row.subject);
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
export async function signIn(
  portal: PortalProgram,
  form: { email: string; password: string },
  address: string,
): Promise<SignInOutcome> {
  if (emailProblem(form.email) || form.password === '' || form.password.length > MAX_TEXT)
    return { kind: 'wrong' };
  const seconds = await waitBeforeSignIn(portal, form.email, address);
  if (seconds > 0) return { kind: 'wait', seconds };
  const { ctx } = portal;
  const row = await signInPartner(ctx, form.email, form.password);
  const names = subjects(form.email, address);
  if (!row || row.status === 'archived') {
    await repository.addFailures(
      ctx.database.db,
      ctx.program.id,
      [names.account, names.address],
      nowTimestamp(ctx.clock),
    );
    return { kind: 'wrong' };
  }
  await repository.clearFailures(ctx.database.db, ctx.program.id, names.account);
  return { kind: 'signed_in', token: await startSession(portal, row) };
}

export type TokenPurpose = 'sign_in' | 'reset';

/** Queues a one-time link to the partner's e-mail; silent for unknown e-mails (no account probing). */
export async function sendLink(portal: PortalProgram, email: string, purpose: TokenPurpose, base: LinkBase) {
  if (emailProblem(email)) return;
  const { ctx } = portal;
  const row = await findPartnerByEmail(ctx.database.db, ctx.program.id, email);
  if (!row || row.status === 'archived') return;
  await mailOneTimeLink(ctx, {
    purpose,
    owner: { kind: 'partner', id: Number(row.id) },
    to: row.email,
    name: row.name,
    portalUrl: portalUrl(base, portal),
    portalName: `the ${portal.name} partner portal`,
    subject:
      purpose === 'sign_in' ? `Your sign-in link for ${portal.name}` : `Reset your ${portal.name} password`,
  });
}

export const sendSignInLink = (portal: PortalProgram, email: string, base: LinkBase) =>
  portal.passwordless ? sendLink(portal, email, 'sign_in', base) : Promise.resolve();

export const sendPasswordReset = (portal: PortalProgram, email: string, base: LinkBase) =>
  sendLink(portal, email, 'reset', base);

/** Signs in with a one-time link: its first use only, within 15 minutes. */
export async function signInWithLink(portal: PortalProgram, token: string): Promise<string | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const { ctx } = portal;
  const db = ctx.database.db;
  const used = await repository.useToken(
    db,
    ctx.program.id,
    digest(token),
    'sign_in',
    nowTimestamp(ctx.clock),
  );
  if (!used) return undefined;
  const row = await findPartnerById(db, ctx.program.id, Number(used.owner_id));
  if (!row || row.status === 'archived') return undefined;
  return startSession(portal, row);
}

/** Whether a reset link can still be used (the form is shown only then). */
export const resetLinkUsable = (portal: PortalProgram, token: string) =>
  oneTimeLinkUsable(portal.ctx, token, 'reset');

/** Whether a sign-in link can still be used (its button is shown only then). */
export const signInLinkUsable = (portal: PortalProgram, token: string) =>
  oneTimeLinkUsable(portal.ctx, token, 'sign_in');

export type PasswordOutcome =
  | { kind: 'invalid'; error: string }
  | { kind: 'expired' }
  | { kind: 'changed'; token: string };

/** What is wrong with a new password (the spec's rule), or undefined. */
export function newPasswordProblem(password: string): string | undefined {
  if (password === '') return 'Choose a password.';
  if (password.length > MAX_TEXT) return `Enter at most ${MAX_TEXT} characters.`;
  const problems = passwordProblems('password', password);
  return problems.length > 0 ? problems.map(renderProblem).join(' ') : undefined;
}

/** Stores a new password through the partners service (`partner.updated`, as `/v1` does). */
export async function setPassword(
  portal: PortalProgram,
  row: PartnerRow,
  password: string,
): Promise<PartnerRow> {
  await updatePartner(portal.ctx, row.public_id, { password });
  const updated = await findPartnerById(portal.ctx.database.db, portal.ctx.program.id, Number(row.id));
  if (!updated) throw new Error('the partner was not found after its update');
  return updated;
}

/** A new password from a reset link: every session of the partner ends, a new one begins. */
export async function resetPassword(
  portal: PortalProgram,
  token: string,
  password: string,
): Promise<PasswordOutcome> {
  if (!(await resetLinkUsable(portal, token))) return { kind: 'expired' };
  // Checked before the link is used, so a weak password does not burn the link.
  const problem = newPasswordProblem(password);
  if (problem) return { kind: 'invalid', error: problem };
  const { ctx } = portal;
  const db = ctx.database.db;
  const used = await repository.useToken(db, ctx.program.id, digest(token), 'reset', nowTimestamp(ctx.clock));
  if (!used) return { kind: 'expired' };
  const row = await findPartnerById(db, ctx.program.id, Number(used.owner_id));
  if (!row || row.status === 'archived') return { kind: 'expired' };
  const updated = await setPassword(portal, row, password);
  await repository.deleteSessionsOf(db, ctx.program.id, { kind: 'partner', id: Number(row.id) });
  return { kind: 'changed', token: await startSession(portal, updated) };
}

/** The settings form: name and surname, through the partners service. */
export async function updateName(
  portal: PortalProgram,
  partner: SignedInPartner,
  form: { name: string; surname: string },
): Promise<{ name?: string; surname?: string } | undefined> {
  const errors: { name?: string; surname?: string } = {};
  if (form.name === '') errors.name = 'Enter your first name.';
  else if (form.name.length > MAX_TEXT) errors.name = `Enter at most ${MAX_TEXT} characters.`;
  if (form.surname.length > MAX_TEXT) errors.surname = `Enter at most ${MAX_TEXT} characters.`;
  if (Object.keys(errors).length > 0) return errors;
  await updatePartner(portal.ctx, partner.row.public_id, { name: form.name, surname: form.surname });
  return undefined;
}

/**
 * A new password from the settings page: the current one must be right. Every session ends and
 * the browser that changed it goes on with a fresh one.
 */
export async function changePassword(
  portal: PortalProgram,
  partner: SignedInPartner,
  form: { current: string; password: string },
): Promise<PasswordOutcome> {
  const { ctx } = portal;
  const problem = newPasswordProblem(form.password);
  if (problem) return { kind: 'invalid', error: problem };
  const current =
    form.current === '' || form.current.length > MAX_TEXT
      ? undefined
      : await signInPartner(ctx, partner.row.email, form.current);
  if (!current || Number(current.id) !== Number(partner.row.id))
    return { kind: 'invalid', error: 'Your current password is not right.' };
  const updated = await setPassword(portal, current, form.password);
  await repository.deleteSessionsOf(ctx.database.db, ctx.program.id, {
    kind: 'partner',
    id: Number(current.id),
  });
  return { kind: 'changed', token: await startSession(portal, updated) };
}
