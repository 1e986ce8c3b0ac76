import type { FastifyReply, FastifyRequest } from 'fastify';
import { formText, formValidator } from '../../pages/forms.tsx';
import { pageDeps, seeOther, sendPage, setSessionCookie } from '../../pages/plugin.tsx';
import { UseLinkPage } from './portal.account.views.tsx';
import type { SignUpForm } from './portal.accounts.service.ts';
import type { LeadForm } from './portal.dashboard.service.ts';
import {
  PAYOUT_FIELDS,
  PartnerPayoutInput,
  type PayoutField,
  type PayoutForm,
} from './portal.payout.service.ts';
import {
  type Brand,
  currentPartner,
  getHostPortalProgram,
  getPortalProgram,
  type LeadFormField,
  notePartnerVisit,
  PORTAL_CLICK_COOKIE,
  type PortalProgram,
  type PortalVisit,
  SESSION_DAYS,
} from './portal.service.ts';

/** What every partner portal page reads of a request: its mount (path or host), the session cookie, the forms. */

export const SESSION_COOKIE = 'vouch_portal';
export type Params = { program: string };

/**
 * Where a portal is served: at `/p/{program public id}` on any host, or at `/` on the program's
 * own `portal_host`; each finds the program of a request its way.
 */
export interface Mount {
  path: string;
  find(request: FastifyRequest): Promise<PortalProgram | undefined>;
}

export const byPath: Mount = {
  path: '/:program',
  find: (request) => getPortalProgram(pageDeps(request), (request.params as Params).program),
};

export const byHost: Mount = {
  path: '',
  find: (request) => getHostPortalProgram(pageDeps(request), request.hostname),
};

export const setSession = (
  request: FastifyRequest,
  reply: FastifyReply,
  portal: PortalProgram,
  token: string,
) =>
  setSessionCookie(request, reply, {
    name: SESSION_COOKIE,
    value: token,
    path: portal.base || '/',
    days: SESSION_DAYS,
  });

export const clearSession = (reply: FastifyReply, portal: PortalProgram) =>
  reply.clearCookie(SESSION_COOKIE, { path: portal.base || '/' });

export const sessionToken = (request: FastifyRequest) => request.cookies[SESSION_COOKIE];

/** The signed-in partner; otherwise the browser is sent to the sign-in page. */
export async function signedIn(
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  portal: PortalProgram,
) {
  const partner = await currentPartner(portal, sessionToken(request));
  if (!partner) {
    if (sessionToken(request)) clearSession(reply, portal);
    seeOther(reply, `${portal.base}/sign-in`);
  } else await notePartnerVisit(portal, Number(partner.row.id), visitOf(request));
  return partner;
}

/** What a portal request shows of the browser: its address (`trustProxy` decides which) and click cookie. */
export const visitOf = (request: FastifyRequest): PortalVisit => ({
  ip: request.ip,
  clickId: request.cookies[PORTAL_CLICK_COOKIE],
});

/** A form field as typed (not trimmed): passwords. */
export const rawText = (body: unknown, name: string) => {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
};

/** Every value of a repeated form field (ticked checkboxes), trimmed. */
export const formList = (body: unknown, name: string): string[] => {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  const values = Array.isArray(value) ? value : [value];
  return values
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.trim())
    .filter(Boolean);
};

export const leadForm = (body: unknown, fields: readonly LeadFormField[]): LeadForm => ({
  name: formText(body, 'name'),
  email: formText(body, 'email'),
  answers: Object.fromEntries(
    fields.map((field) => {
      const name = `cfield-${field.id}`;
      return [String(field.id), field.type === 'checkbox' ? formList(body, name) : formText(body, name)];
    }),
  ),
});

/** The API's own check of payout fields (`POST/PUT /v1/partners`), for the settings form. */
export const checkPayout = formValidator(PartnerPayoutInput);

/** Codes are written in upper case (the API's rule for IBAN and SWIFT/BIC); people type either. */
export const upperCased: readonly PayoutField[] = ['iban', 'swift_bic'];

export const payoutForm = (body: unknown): PayoutForm => ({
  method: formText(body, 'payout_method'),
  details: Object.fromEntries(
    PAYOUT_FIELDS.map((field) => {
      const value = formText(body, `payout_${field}`);
      return [field, upperCased.includes(field) ? value.toUpperCase() : value];
    }),
  ),
});

export const signUpForm = (body: unknown): SignUpForm => ({
  name: formText(body, 'name'),
  surname: formText(body, 'surname'),
  email: formText(body, 'email'),
  // Passwords are taken as typed: spaces count.
  password: rawText(body, 'password'),
  terms: formText(body, 'terms') !== '',
});

/** The partner portal's routes at `mount`. */

/**
 * A one-time sign-in link's page (both portals): 200 with the button while the link is usable,
 * 410 saying it was used or has expired, with the way to a new one, once it is not.
 */
export const sendUseLinkPage = (
  reply: FastifyReply,
  link: { site: Brand; newLink: string; usable: boolean },
) =>
  sendPage(
    reply,
    link.usable ? 200 : 410,
    <UseLinkPage
      site={link.site}
      newLink={link.newLink}
      csrf={reply.generateCsrf()}
      expired={!link.usable}
    />,
  );
