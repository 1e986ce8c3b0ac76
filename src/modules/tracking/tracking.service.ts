import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Deps } from '../../context.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import type { ProgramType } from '../../core/program-types.ts';
import {
  type Attribution,
  attributionOf,
  CLICK_COOKIE,
  clickLandingUrl,
  cookieNameByType,
  isCountable,
  isPlausibleLinkKey,
  redirectTarget,
  shouldSetCookie,
} from '../../core/tracking.ts';
import type { DB } from '../../db/tables.ts';
import type { TrackedLinkRow } from './tracking.repository.ts';
import * as repository from './tracking.repository.ts';
import type { ClickTracker, PendingClick } from './tracking.tracker.ts';

export { CLICK_FLUSH_MS, type ClickTracker, clickTrackerOf, LINK_CACHE_MS } from './tracking.tracker.ts';

/**
 * Click tracking (issue 12): `/r/{key}` redirects, `POST /t/click` reports from the tracking
 * script. A click is answered at once and written by the `ClickTracker` within a second, in one
 * transaction per batch: the 24-hour visitor rule, the link's, owner's and program's figures
 * (totals and per day). A crash loses at most the clicks of that last second.
 */

/** What the routes read of a request to decide whether and how it counts. */
export interface ClickRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** The client's address; hashed with the user agent under the day's salt, never stored. */
  address: string;
  /** The page the visitor landed on, as reported (the script's `url`, `/r/…` with its query). */
  landingUrl?: string | undefined;
}

/** The cookie a click sets, when it sets one. */
export interface ClickCookie {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

/** A program's tracking settings, from its stored settings over the defaults. */
function trackingSettings(type: ProgramType, stored: string) {
  const settings = programSettingsOf(type, stored);
  const lifetime = typeof settings.cookie_lifetime === 'number' ? settings.cookie_lifetime : 60;
  return {
    parameter: typeof settings.referral_parameter === 'string' ? settings.referral_parameter : 'aff',
    cookieLifetimeDays: lifetime,
    attribution: attributionOf(settings),
  };
}

/** A link counts while its program tracks this kind of owner and the owner is active. */
function isLive(row: TrackedLinkRow): boolean {
  if (row.partner_id !== null)
    return (
      row.program_type === 'affiliate' && row.partner_status !== null && row.partner_status !== 'archived'
    );
  if (row.customer_id !== null)
    return (
      row.program_type === 'referral' && row.customer_status === 'active' && row.customer_deleted_at === null
    );
  return false;
}

function ownerOf(row: TrackedLinkRow): PendingClick['owner'] {
  return row.partner_id !== null
    ? { kind: 'partner', id: Number(row.partner_id) }
    : { kind: 'customer', id: Number(row.customer_id) };
}

function userAgentOf(request: ClickRequest): string {
  const agent = request.headers['user-agent'];
  return (Array.isArray(agent) ? agent[0] : agent) ?? '';
}

/** Queues a countable click and answers its id; bots, HEAD and prefetches get none. */
function queueClick(
  tracker: ClickTracker,
  deps: Deps,
  row: TrackedLinkRow,
  request: ClickRequest,
  landingUrl: string | null,
): string | undefined {
  if (!isCountable(request.method, request.headers)) return undefined;
  return tracker.add({
    programId: Number(row.program_id),
    linkId: Number(row.link_id),
    owner: ownerOf(row),
    address: request.address,
    userAgent: userAgentOf(request),
    micros: deps.clock.nowMicros(),
    landingUrl,
  });
}

function cookieFor(
  row: TrackedLinkRow,
  settings: { cookieLifetimeDays: number; attribution: Attribution },
  existing: (name: string) => string | undefined,
): ClickCookie | undefined {
  const name = cookieNameByType[row.program_type as ProgramType];
  if (!name || !shouldSetCookie(settings.attribution, existing(name))) return undefined;
  return { name, value: row.key, maxAgeSeconds: settings.cookieLifetimeDays * 86_400 };
}

const linkInProgram = (tracker: ClickTracker, deps: Deps, programPublicId: string, key: string) =>
  tracker.cached(`link\u0000${programPublicId}\u0000${key}`, () =>
    repository.findLinkInProgram(deps.database.db, programPublicId, key),
  );

/** Where `/r/…` answers: a redirect (with the cookie a counted link sets), or the 404 page. */
export type LinkAnswer = { location: string; cookie?: ClickCookie; click?: ClickCookie } | { notFound: true };

/**
 * `GET /r/{key}` and `GET /r/{program}/{key}`: the link's target, the cookie, and the click
 * queued. A key that two programs share is ambiguous without the program and is not followed.
 */
export async function followLink(
  deps: Deps,
  tracker: ClickTracker,
  input: {
    key: string;
    programPublicId?: string;
    request: ClickRequest;
    cookie: (name: string) => string | undefined;
  },
): Promise<LinkAnswer> {
  const db = deps.database.db;
  const plausible = isPlausibleLinkKey(input.key);
  let row: TrackedLinkRow | undefined;
  let program: { type: string; website: string | null; settings: string } | undefined;
  if (input.programPublicId !== undefined) {
    if (!isPlausibleLinkKey(input.programPublicId)) return { notFound: true };
    const programPublicId = input.programPublicId;
    row = plausible ? await linkInProgram(tracker, deps, programPublicId, input.key) : undefined;
    program = row
      ? { type: row.program_type, website: row.website, settings: row.settings }
      : await tracker.cached(`program\u0000${programPublicId}`, () =>
          repository.findProgramByPublicId(db, programPublicId),
        );
  } else if (plausible) {
    const key = input.key;
    const rows = await tracker.cached(`key\u0000${key}`, () => repository.findLinksByKey(db, key));
    if (rows.length === 1) row = rows[0];
    program = row ? { type: row.program_type, website: row.website, settings: row.settings } : undefined;
  }
  if (!program) return { notFound: true };
  const settings = trackingSettings(program.type as ProgramType, program.settings);
  const live = row !== undefined && isLive(row) ? row : undefined;
  const location = redirectTarget({
    website: program.website,
    parameter: settings.parameter,
    link: live ? { key: live.key, redirectUrl: live.redirect_url } : undefined,
  });
  if (!location) return { notFound: true };
  if (!live) return { location };
  // `/r/…` keeps its own URL only when it carries a query string (the ad's click ids ride there).
  const landing = input.request.landingUrl?.includes('?')
    ? clickLandingUrl(input.request.landingUrl)
    : undefined;
  const clickId = queueClick(tracker, deps, live, input.request, landing ?? null);
  const cookie = cookieFor(live, settings, input.cookie);
  if (!cookie) return { location };
  // The click id goes with the key it came with: a first click kept keeps its click too.
  return clickId === undefined
    ? { location, cookie }
    : { location, cookie, click: { ...cookie, name: CLICK_COOKIE, value: clickId } };
}

/**
 * `POST /t/click`: the tracking script reports a visit with a key. Answers the program's cookie
 * settings so the script can store the key on the company's own domain; an unknown, inactive or
 * other program's key is not found, and nothing is counted.
 */
export async function reportClick(
  deps: Deps,
  tracker: ClickTracker,
  input: { program: string; key: string; request: ClickRequest },
) {
  const reported = input.request.landingUrl;
  const landing = reported === undefined ? undefined : clickLandingUrl(reported);
  if (reported !== undefined && landing === undefined) throw fieldError('url', 'invalid');
  const row =
    isPlausibleLinkKey(input.program) && isPlausibleLinkKey(input.key)
      ? await linkInProgram(tracker, deps, input.program, input.key)
      : undefined;
  if (!row || !isLive(row)) throw new AppError('not_found', 'Referral link not found.');
  const settings = trackingSettings(row.program_type as ProgramType, row.settings);
  const clickId = queueClick(tracker, deps, row, input.request, landing ?? null);
  return {
    key: row.key,
    click_id: clickId ?? null,
    cookie: cookieNameByType[row.program_type as ProgramType] ?? '',
    cookie_lifetime: settings.cookieLifetimeDays,
    attribution: settings.attribution,
    parameter: settings.parameter,
  };
}

/** The tracking script, read once from the repository, with its ETag. */
export interface TrackingScript {
  body: string;
  etag: string;
}

let script: TrackingScript | undefined;

export function trackingScript(): TrackingScript {
  if (!script) {
    const body = readFileSync(new URL('../../../public/vouch.js', import.meta.url), 'utf8');
    script = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  }
  return script;
}

/**
 * A buyer's address as the fraud rules name it (issue 27): an HMAC under the day's click salt, so
 * it can be compared within the day and with nothing once the salt is dropped. Written in the
 * caller's transaction (a new day's salt is created there if clicks have not made it yet).
 */
export async function addressNameOf(db: Kysely<DB>, address: string, at: string): Promise<string> {
  const salt = await repository.saltOf(db, at.slice(0, 10), randomBytes(32).toString('base64url'));
  return createHmac('sha256', salt).update('address\u0000').update(address).digest('base64url');
}

/** What a click id tells the fraud rules: its owner, landing URL and time; undefined when unknown. */
export async function findClickFacts(db: Kysely<DB>, programId: number, clickId: string) {
  const row = await repository.findClick(db, programId, clickId);
  if (!row) return undefined;
  return {
    owner: { kind: row.owner_kind, id: Number(row.owner_id) },
    landingUrl: row.landing_url,
    clickedAt: row.clicked_at,
  };
}
