import type { Deps, ProgramContext } from '../../context.ts';
import type { CommissionSettings } from '../../core/commissions.ts';
import { AppError, type FieldProblem } from '../../core/errors.ts';
import { renderProblem } from '../../core/messages.ts';
import type { PayoutDetails, PayoutMethod } from '../../core/payouts.ts';
import {
  commissionTermsInWords,
  dailySeries,
  FAILURE_MEMORY_MS,
  FREE_FAILURES,
  maskedName,
  SESSION_DAYS,
  secondsToWait,
} from '../../core/portal.ts';
import { portalSettingsOf } from '../../core/program-settings.ts';
import { addDays, dayOf, nowTimestamp } from '../../core/time.ts';
import { listLatestCommissionsOfPartner, settleDueCommissions } from '../commissions/commissions.service.ts';
import { listLatestCustomersOfPartner } from '../customers/customers.service.ts';
import { createLead, getLeadSetup, leadAnswerProblems, listLeads } from '../leads/leads.service.ts';
import { createPartnerLink } from '../partners/partners.links.service.ts';
import {
  createPartner,
  findPartnerByEmail,
  findPartnerById,
  getPartnerDashboardFigures,
  type PartnerRow,
  passwordProblems,
  signInPartner,
  updatePartner,
} from '../partners/partners.service.ts';
import { listPartnerPayouts } from '../payouts/payouts.service.ts';
import { partnerPortalUrl, readPageProgram } from '../program/program.service.ts';
import * as repository from './portal.repository.ts';
import {
  digest,
  mailOneTimeLink,
  minutesFromNow,
  newSecret,
  oneTimeLinkUsable,
  TOKEN_SHAPE,
} from './portal.secrets.ts';

/** How the pages say amounts and waits, and the country choices of a lead form. */
export { countryCodes } from '../../core/countries.ts';
export type { LeadFormField } from '../../core/lead-form.ts';
export { moneyInWords, SESSION_DAYS, waitInWords } from '../../core/portal.ts';

/**
 * The partner portal (issue 14): sign-up, sign-in with a password or a one-time link, password
 * reset, sessions, and what the dashboard shows. It writes partners through the partners service
 * (same checks, events and e-mails as `/v1`) and reads figures from counters through the services
 * that own them; only sessions, tokens and failed sign-ins are its own.
 */

/** Where links in e-mails point: `PUBLIC_URL`, else the request's own origin. */
export interface LinkBase {
  baseUrl: string;
}

export type PortalProgram = ReturnType<typeof toPortal>;
type PageProgram = NonNullable<Awaited<ReturnType<typeof readPageProgram>>>;

/** The affiliate program of a portal URL `/p/{public id}`, as the pages use it; else undefined. */
export async function getPortalProgram(deps: Deps, publicId: string) {
  return portalOf(deps, await readPageProgram(deps, { publicId }), 'path');
}

/**
 * The affiliate program whose `portal_host` is the host a request came to (its name without the
 * port, any case), served at `/`; else undefined.
 */
export async function getHostPortalProgram(deps: Deps, hostname: string) {
  if (hostname === '' || hostname.length > 253) return undefined;
  return portalOf(deps, await readPageProgram(deps, { host: hostname.toLowerCase() }), 'host');
}

type Mount = 'path' | 'host';

/** What the pages derive from a program row, once per row read (the read is reused for a second). */
const portals = new WeakMap<PageProgram, Partial<Record<Mount, PortalProgram>>>();

function portalOf(deps: Deps, program: PageProgram | undefined, mount: Mount) {
  if (program?.type !== 'affiliate') return undefined;
  let built = portals.get(program);
  if (!built) portals.set(program, (built = {}));
  built[mount] ??= toPortal(deps, program, mount);
  return built[mount];
}

function toPortal(deps: Deps, program: PageProgram, mount: Mount) {
  const ctx: ProgramContext = {
    ...deps,
    program: {
      id: program.id,
      publicId: program.public_id,
      type: program.type,
      keyId: 0,
      keyPublicId: '',
      scope: 'full',
    },
  };
  const portal = portalSettingsOf(program.type, program.portal_settings);
  const settings = program.programSettings;
  return {
    ctx,
    publicId: program.public_id,
    /** Where the portal's pages are on this request's host: `/p/{public id}`, or `` at the root of its own host. */
    base: mount === 'host' ? '' : `/p/${program.public_id}`,
    portalHost: program.portal_host,
    name: program.name,
    website: program.website,
    currency: String(settings.currency ?? 'USD'),
    cookieLifetimeDays: Number(settings.cookie_lifetime ?? 60),
    terms: commissionTermsInWords(settings as unknown as CommissionSettings, String(settings.currency)),
    autoApprove: settings.partner_auto_approve !== false,
    customLinks: settings.partner_custom_links_enabled === true,
    programPage: portal.program_page_enabled !== false,
    leadsPage: portal.leads_page_enabled === true,
    registration: portal.registration_disabled !== true,
    passwordless: portal.passwordless_login_enabled === true,
  };
}

/**
 * The portal's own URL, without a trailing slash (links in e-mails are `{it}/link/…`): on the
 * program's portal host when it has one, else `/p/{public id}` on the base URL.
 */
export const portalUrl = (base: LinkBase, portal: PortalProgram) =>
  partnerPortalUrl(base.baseUrl, portal.publicId, portal.portalHost, portal.ctx.config.publicUrl).replace(
    /\/$/,
    '',
  );

/** Changes whenever the password does: a session made before a new password no longer matches. */
const credentialStamp = (row: PartnerRow) => digest(`partner:${row.password_hash ?? ''}`).slice(0, 32);

async function startSession(portal: PortalProgram, row: PartnerRow): Promise<string> {
  const token = newSecret();
  const { ctx } = portal;
  await repository.insertSession(ctx.database.db, {
    program_id: ctx.program.id,
    token_hash: digest(token),
    owner_kind: 'partner',
    owner_id: Number(row.id),
    credential_stamp: credentialStamp(row),
    approved: row.approved ? 1 : 0,
    created_at: nowTimestamp(ctx.clock),
    expires_at: minutesFromNow(ctx, SESSION_DAYS * 24 * 60),
  });
  return token;
}

/** The signed-in partner, or undefined: a session ends with archive, rejection or a new password. */
export async function currentPartner(portal: PortalProgram, token: string | undefined) {
  if (!token || token.length > 100) return undefined;
  const { ctx } = portal;
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const session = await repository.findSession(db, programId, digest(token));
  if (session?.owner_kind !== 'partner') return undefined;
  const row = await findPartnerById(db, programId, Number(session.owner_id));
  const ended =
    !row ||
    session.expires_at <= nowTimestamp(ctx.clock) ||
    row.status === 'archived' ||
    session.credential_stamp !== credentialStamp(row) ||
    (Boolean(session.approved) && !row.approved);
  if (ended) {
    await repository.deleteSession(db, programId, digest(token));
    return undefined;
  }
  return { row, pending: !row.approved };
}

export type SignedInPartner = NonNullable<Awaited<ReturnType<typeof currentPartner>>>;

export async function signOut(portal: PortalProgram, token: string | undefined) {
  if (token) await repository.deleteSession(portal.ctx.database.db, portal.ctx.program.id, digest(token));
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const MAX_TEXT = 255;

export interface SignUpForm {
  name: string;
  surname: string;
  email: string;
  password: string;
  terms: boolean;
}
export type SignUpErrors = Partial<Record<keyof SignUpForm, string>>;

function emailProblem(email: string): string | undefined {
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

const subjects = (email: string, address: string) => ({
  account: `account:${email.toLowerCase()}`,
  address: `address:${address}`,
});

/** Seconds until this account and address may try again (the longer of the two waits). */
async function waitBeforeSignIn(portal: PortalProgram, email: string, address: string) {
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

type TokenPurpose = 'sign_in' | 'reset';

/** Queues a one-time link to the partner's e-mail; silent for unknown e-mails (no account probing). */
async function sendLink(portal: PortalProgram, email: string, purpose: TokenPurpose, base: LinkBase) {
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
function newPasswordProblem(password: string): string | undefined {
  if (password === '') return 'Choose a password.';
  if (password.length > MAX_TEXT) return `Enter at most ${MAX_TEXT} characters.`;
  const problems = passwordProblems('password', password);
  return problems.length > 0 ? problems.map(renderProblem).join(' ') : undefined;
}

/** Stores a new password through the partners service (`partner.updated`, as `/v1` does). */
async function setPassword(portal: PortalProgram, row: PartnerRow, password: string): Promise<PartnerRow> {
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

/** The payout form's schema: the one `POST/PUT /v1/partners` validate these fields with. */
export { PartnerPayoutInput } from '../partners/partners.schemas.ts';

/** Each method's fields on the settings form, in the order shown (core/payouts.ts says which it needs). */
export const payoutFieldsByMethod = {
  paypal: ['email'],
  wise: ['email', 'iban', 'account_holder'],
  bank_transfer: ['account_holder', 'iban', 'account_number', 'routing_number', 'swift_bic', 'bank_name'],
  manual: ['note'],
} as const satisfies Record<PayoutMethod, readonly (keyof PayoutDetails)[]>;

export type PayoutField = keyof PayoutDetails;

/** Every payout field of the form. */
export const PAYOUT_FIELDS: readonly PayoutField[] = [
  'email',
  'iban',
  'account_holder',
  'account_number',
  'routing_number',
  'swift_bic',
  'bank_name',
  'note',
];

const payoutFieldWords: Record<PayoutField, string> = {
  email: 'e-mail address',
  iban: 'IBAN',
  account_holder: "account holder's name",
  account_number: 'account number',
  routing_number: 'routing number',
  swift_bic: 'SWIFT/BIC code',
  bank_name: "bank's name",
  note: 'note',
};

export interface PayoutForm {
  method: string;
  details: Partial<Record<PayoutField, string>>;
}

/** Problems by form field: `payout_method` or a detail's name. */
export type PayoutErrors = Partial<Record<'payout_method' | PayoutField, string>>;

/** The partner's payout method and fields as stored (shown on the settings form only). */
export function payoutOf(partner: SignedInPartner): PayoutForm {
  const stored: unknown = JSON.parse(partner.row.payout_details || '{}');
  const details = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  return {
    method: partner.row.payout_method ?? '',
    details: Object.fromEntries(
      Object.keys(payoutFieldWords)
        .filter((field) => typeof details[field] === 'string')
        .map((field) => [field, details[field] as string]),
    ),
  };
}

/** The body the partners service takes: the method's own fields, the empty ones left out. */
export function payoutInput(form: PayoutForm) {
  const fields: readonly PayoutField[] = payoutFieldsByMethod[form.method as PayoutMethod] ?? PAYOUT_FIELDS;
  return {
    payout_method: form.method,
    payout_details: Object.fromEntries(
      fields
        .filter((field) => (form.details[field] ?? '') !== '')
        .map((field) => [field, form.details[field]]),
    ),
  };
}

/** Whether a problem is a value missing (Laravel's `required` and `required_if`). */
const isMissing = (found: FieldProblem) => found.rule === 'required' || found.rule === 'requiredWhen';

/** The API's field problems (`payout_details.iban`) in the page's words, by form field. */
export function payoutProblemsInWords(problems: readonly FieldProblem[]): PayoutErrors {
  const errors: PayoutErrors = {};
  for (const path of new Set(problems.map((found) => found.field))) {
    const onField = problems.filter((found) => found.field === path);
    if (path === 'payout_method') {
      errors.payout_method = 'Choose how you want to be paid.';
      continue;
    }
    const field = /^payout_details\.(\w+)$/.exec(path)?.[1] as PayoutField | undefined;
    if (!field || !(field in payoutFieldWords)) continue;
    const words = payoutFieldWords[field];
    const longest = onField.flatMap((found) => (found.rule === 'maxLength' ? [found.params[0]] : []))[0];
    errors[field] = onField.some(isMissing)
      ? field === 'iban'
        ? 'Enter your IBAN or your account number.'
        : `Enter your ${words}.`
      : longest !== undefined
        ? `Enter at most ${longest} characters.`
        : `This ${words} is not valid: check it and try again.`;
  }
  return errors;
}

/**
 * The settings form's payout method and fields, stored through the partners service as
 * `PUT /v1/partners` stores them (the method's required fields, `partner.updated`); the caller
 * has checked them against the API's schema. Answers the problems in the page's words.
 */
export async function updatePayout(
  portal: PortalProgram,
  partner: SignedInPartner,
  input: ReturnType<typeof payoutInput>,
): Promise<PayoutErrors | undefined> {
  try {
    await updatePartner(portal.ctx, partner.row.public_id, {
      payout_method: input.payout_method as PayoutMethod,
      payout_details: input.payout_details,
    });
    return undefined;
  } catch (error) {
    if (error instanceof AppError && error.status === 422) return payoutProblemsInWords(error.problems);
    throw error;
  }
}

/** How many days the dashboard's chart covers. */
export const CHART_DAYS = 30;
const LATEST = 10;
/** The dashboard's latest payouts. */
const PAYOUTS_SHOWN = 5;

/** Everything the dashboard shows, from counters and the newest rows of each list. */
export async function getDashboard(portal: PortalProgram, partner: SignedInPartner) {
  const { ctx } = portal;
  const today = dayOf(nowTimestamp(ctx.clock));
  const from = addDays(today, -(CHART_DAYS - 1));
  const figures = await getPartnerDashboardFigures(ctx, partner.row, settleDueCommissions, from);
  const partnerId = Number(partner.row.id);
  const customers = await listLatestCustomersOfPartner(ctx, partnerId, LATEST);
  const commissions = await listLatestCommissionsOfPartner(ctx, partnerId, LATEST);
  const payouts = await listPartnerPayouts(ctx, Number(partner.row.id), PAYOUTS_SHOWN);
  return {
    figures,
    chart: dailySeries(figures.clicksByDay, today, CHART_DAYS),
    customers: customers.map((customer) => ({
      name: maskedName(customer.name, customer.email, customer.surname),
      since: dayOf(customer.created_at),
    })),
    commissions: commissions.map((commission) => ({
      id: commission.id,
      amount: commission.amount,
      currency: commission.currency,
      status: commission.status,
      kind: commission.kind,
      day: dayOf(commission.created_at),
    })),
    payouts: payouts.map((payout) => ({
      id: payout.id,
      amount: payout.amount,
      currency: payout.currency,
      status: payout.status,
      day: dayOf(payout.paid_at ?? payout.created_at),
    })),
  };
}

const LEADS_SHOWN = 25;

/** The lead form page: the program's form (when leads are on) and the partner's latest leads. */
export async function getLeadPage(portal: PortalProgram, partner: SignedInPartner) {
  const { ctx } = portal;
  const setup = await getLeadSetup(ctx);
  const leads = await listLeads(ctx, {
    page: 1,
    limit: LEADS_SHOWN,
    sort: 'desc',
    partner: { id: partner.row.public_id },
  });
  return {
    enabled: setup.leads_enabled === 'true',
    fields: setup.leads_custom_form_fields,
    leads: leads.slice(0, LEADS_SHOWN).map((lead) => ({
      id: lead.id,
      name: lead.lead_info.name,
      email: lead.lead_info.email,
      status: lead.status,
      day: lead.created_at,
    })),
  };
}

export interface LeadForm {
  name: string;
  email: string;
  /** Answers by form field id; a checkbox field's answer is the list of ticked choices. */
  answers: Record<string, string | string[]>;
}

/** Errors by form field: `name`, `email`, or a form field's id. */
export type LeadErrors = Record<string, string>;

/**
 * A lead from the portal's form, through the leads service with this partner as submitter
 * (`lead.created`, the form's rules); the service's messages become the page's.
 */
export async function submitLead(
  portal: PortalProgram,
  partner: SignedInPartner,
  form: LeadForm,
): Promise<{ kind: 'invalid'; errors: LeadErrors } | { kind: 'disabled' } | { kind: 'submitted' }> {
  const errors: LeadErrors = {};
  if (form.name === '') errors.name = 'Enter the name of the person or company.';
  else if (form.name.length > MAX_TEXT) errors.name = `Enter at most ${MAX_TEXT} characters.`;
  const email = emailProblem(form.email);
  if (email) errors.email = email;
  const answers = Object.fromEntries(Object.entries(form.answers).filter(([, answer]) => answer.length > 0));
  let problems: readonly FieldProblem[] = [];
  try {
    if (Object.keys(errors).length > 0) problems = await leadAnswerProblems(portal.ctx, answers);
    else {
      await createLead(portal.ctx, {
        name: form.name,
        email: form.email,
        partner: { id: partner.row.public_id },
        cfields: answers,
      });
      return { kind: 'submitted' };
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.status === 403) return { kind: 'disabled' };
    if (error.status !== 422) throw error;
    problems = error.problems;
  }
  // The service names answers `cfields.{id}` in the API's words; the page says it plainly.
  for (const path of new Set(problems.map((found) => found.field))) {
    const id = /^cfields\.(\d+)$/.exec(path)?.[1];
    if (id)
      errors[id] = problems.some((found) => found.field === path && isMissing(found))
        ? 'Answer this question.'
        : 'Check this answer.';
  }
  return { kind: 'invalid', errors };
}

/** What a link key may hold: it travels in URLs (the API's rule). */
const LINK_KEY = /^[^\s/?#&]{1,255}$/;

/**
 * An additional link with a key of the partner's choice (`partner_custom_links_enabled`), through
 * the partner links service as `POST /v1/partner_referral_links` makes one; answers the problem.
 */
export async function createCustomLink(
  portal: PortalProgram,
  partner: SignedInPartner,
  key: string,
): Promise<string | undefined> {
  if (key === '') return 'Enter a key for the new link.';
  if (!LINK_KEY.test(key)) return 'Use at most 255 characters, without spaces, /, ?, # or &.';
  try {
    await createPartnerLink(portal.ctx, { key, partner: { id: partner.row.public_id }, is_additional: true });
    return undefined;
  } catch (error) {
    if (error instanceof AppError && error.status === 422 && error.problemOn('key'))
      return 'This key is taken: choose another one.';
    throw error;
  }
}
