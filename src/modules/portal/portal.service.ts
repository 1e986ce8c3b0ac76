import { type Deps, keylessContext } from '../../context.ts';
import { brandOf } from '../../core/branding.ts';
import type { CommissionSettings } from '../../core/commissions.ts';
import { commissionTermsInWords, SESSION_DAYS } from '../../core/portal.ts';
import { portalSettingsOf } from '../../core/program-settings.ts';
import { nowTimestamp } from '../../core/time.ts';
import { type PortalVisit, recordPortalVisit } from '../fraud/fraud.sightings.service.ts';
import { findPartnerById, type PartnerRow } from '../partners/partners.service.ts';
import { partnerPortalUrl, readPageProgram } from '../program/program.service.ts';
import * as repository from './portal.repository.ts';
import { digest, minutesFromNow, newSecret } from './portal.secrets.ts';

export type { Brand } from '../../core/branding.ts';
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
  const ctx = keylessContext(deps, program);
  const portal = portalSettingsOf(program.type, program.portal_settings);
  const settings = program.programSettings;
  return {
    ctx,
    publicId: program.public_id,
    /** Where the portal's pages are on this request's host: `/p/{public id}`, or `` at the root of its own host. */
    base: mount === 'host' ? '' : `/p/${program.public_id}`,
    portalHost: program.portal_host,
    name: program.name,
    brand: brandOf(program, settings),
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

export async function startSession(portal: PortalProgram, row: PartnerRow): Promise<string> {
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

/**
 * Notes where a signed-in partner used its portal from (its address and click cookie), for the
 * `same_address` fraud rule on the referrals it brings.
 */
export const notePartnerVisit = (portal: PortalProgram, partnerId: number, visit: PortalVisit) =>
  recordPortalVisit(portal.ctx, { kind: 'partner', id: partnerId }, visit);

/** The click cookie the tracking link sets on Vouch's host (a portal request on it carries it). */
export { CLICK_COOKIE as PORTAL_CLICK_COOKIE } from '../../core/tracking.ts';
export type { PortalVisit };

export async function signOut(portal: PortalProgram, token: string | undefined) {
  if (token) await repository.deleteSession(portal.ctx.database.db, portal.ctx.program.id, digest(token));
}

/** The payout form's schema: the one `POST/PUT /v1/partners` validate these fields with. */
