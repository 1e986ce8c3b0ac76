import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Deps } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { AppError } from '../../core/errors.ts';
import { deleteOldest } from '../../core/oldest.ts';
import { present } from '../../core/present.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { customerMetrics } from '../../core/sales.ts';
import { ShortCache } from '../../core/short-cache.ts';
import { formatTimestamp, millisOn } from '../../core/time.ts';
import {
  type Attribution,
  attributionOf,
  COUNT_WINDOW_MS,
  cookieNameByType,
  isCountable,
  isPlausibleLinkKey,
  redirectTarget,
  saltDays,
  shouldSetCookie,
  visitorHash,
} from '../../core/tracking.ts';
import type { DB } from '../../db/tables.ts';
import {
  addCounterDeltas,
  addDailyCounterDeltas,
  type CounterDelta,
} from '../counters/counters.repository.ts';
import { programMetrics, recordProgramActivity } from '../program/program.service.ts';
import type { TrackedLinkRow } from './tracking.repository.ts';
import * as repository from './tracking.repository.ts';

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
}

/** The cookie a click sets, when it sets one. */
export interface ClickCookie {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

interface PendingClick {
  programId: number;
  linkId: number;
  owner: { kind: 'partner' | 'customer'; id: number };
  address: string;
  userAgent: string;
  micros: number;
}

/** Clicks wait in memory at most this long before they are written. */
export const CLICK_FLUSH_MS = 500;
/** A batch this large is written at once. */
const MAX_PENDING = 2000;
/** How often old visitors and salts are dropped. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/**
 * How long a link lookup is reused: a link archived or changed is followed as it was for at most
 * this long (like API keys, a documented short lifetime), and a busy link costs no query.
 */
export const LINK_CACHE_MS = 1000;
const LINK_CACHE_SIZE = 10_000;

const trackers = new WeakMap<Deps, ClickTracker>();

/** The one click tracker of an app: its routes count clicks with it; `flush()` writes them now. */
export function clickTrackerOf(deps: Deps): ClickTracker {
  let tracker = trackers.get(deps);
  if (!tracker) trackers.set(deps, (tracker = new ClickTracker(deps)));
  return tracker;
}

/** Buffers counted clicks and writes them in batches; `close` writes what is left. */
export class ClickTracker {
  #pending: PendingClick[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #salts = new Map<string, string | undefined>();
  #prunedAt = 0;
  #closed = false;
  #lookups: ShortCache<string, unknown>;

  constructor(private readonly deps: Deps) {
    // Lookups age on the app's clock, so a test moves past their lifetime instead of sleeping.
    this.#lookups = new ShortCache({
      ttlMs: LINK_CACHE_MS,
      capacity: LINK_CACHE_SIZE,
      now: millisOn(deps.clock),
    });
  }

  /** `load()`, reused for LINK_CACHE_MS per `key` (this app's lookups only). */
  cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    return this.#lookups.get(key, load) as Promise<T>;
  }

  add(click: PendingClick): void {
    this.#pending.push(click);
    if (this.#pending.length >= MAX_PENDING) void this.flush();
    else if (!this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => void this.flush(), CLICK_FLUSH_MS);
      this.#timer.unref();
    }
  }

  /** Writes every pending click; resolves once they (and any earlier batch) are written. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    this.#flushing = this.#flushing.then(() => (batch.length ? this.#write(batch) : undefined));
    return this.#flushing;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  async #salt(db: Kysely<DB>, day: string, create: boolean): Promise<string | undefined> {
    if (this.#salts.has(day)) return this.#salts.get(day);
    const salt = create
      ? await repository.saltOf(db, day, randomBytes(32).toString('base64url'))
      : await repository.findSalt(db, day);
    if (create || salt !== undefined) this.#salts.set(day, salt);
    if (this.#salts.size > 4) deleteOldest(this.#salts);
    return salt;
  }

  async #write(batch: PendingClick[]): Promise<void> {
    const { database, clock, log } = this.deps;
    try {
      const now = new Date(Math.floor(clock.nowMicros() / 1000));
      const days = saltDays(now);
      const today = present(await this.#salt(database.db, days.today, true), "today's salt");
      const yesterday = await this.#salt(database.db, days.yesterday, false);
      // One visitor's repeats within a batch are one click (the first): no query for the rest.
      const seen = new Set<string>();
      const distinct = batch.filter((click) => {
        const id = `${click.programId}:${click.linkId}:${click.address}\u0000${click.userAgent}`;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      });
      await database.inWriteTransaction(async (trx) => {
        const byProgram = new Map<number, { day: string; at: string; entities: CounterDelta[] }[]>();
        for (const click of distinct) {
          const at = formatTimestamp(click.micros);
          const cutoff = formatTimestamp(click.micros - COUNT_WINDOW_MS * 1000);
          const visit = { programId: click.programId, linkId: click.linkId, cutoff };
          if (
            yesterday !== undefined &&
            (await repository.countedSince(trx, {
              ...visit,
              visitor: visitorHash(yesterday, click.address, click.userAgent),
            }))
          )
            continue;
          const visitor = visitorHash(today, click.address, click.userAgent);
          if (!(await repository.claimVisit(trx, { ...visit, visitor, at }))) continue;
          const entities: CounterDelta[] = [
            { kind: 'link', id: click.linkId, metric: partnerMetrics.clicks, value: 1 },
            {
              kind: click.owner.kind,
              id: click.owner.id,
              metric: click.owner.kind === 'partner' ? partnerMetrics.clicks : customerMetrics.clicks,
              value: 1,
            },
          ];
          const list = byProgram.get(click.programId) ?? [];
          list.push({ day: at.slice(0, 10), at, entities });
          byProgram.set(click.programId, list);
        }
        for (const [programId, clicks] of byProgram) {
          await addCounterDeltas(
            trx,
            programId,
            clicks.flatMap((c) => c.entities),
          );
          for (const day of new Set(clicks.map((c) => c.day))) {
            const ofDay = clicks.filter((c) => c.day === day);
            const first = present(ofDay[0], 'a click of the day');
            await addDailyCounterDeltas(
              trx,
              programId,
              day,
              ofDay.flatMap((c) => c.entities),
            );
            await recordProgramActivity(trx, programId, first.at, {
              [programMetrics.clicks]: ofDay.length,
            });
          }
        }
      });
    } catch (error) {
      log.error({ err: error, clicks: batch.length }, 'click batch not written');
    }
    await this.#prune();
  }

  /** Drops visitors that no longer decide anything and salts older than yesterday's, hourly. */
  async #prune(): Promise<void> {
    const now = Math.floor(this.deps.clock.nowMicros() / 1000);
    if (now - this.#prunedAt <= PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    try {
      const db = this.deps.database.db;
      await repository.pruneVisitors(db, formatTimestamp((now - 2 * COUNT_WINDOW_MS) * 1000));
      await repository.dropSaltsBefore(db, saltDays(new Date(now)).yesterday);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'old click visitors not pruned');
    }
  }
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

function queueClick(tracker: ClickTracker, deps: Deps, row: TrackedLinkRow, request: ClickRequest) {
  if (!isCountable(request.method, request.headers)) return;
  tracker.add({
    programId: Number(row.program_id),
    linkId: Number(row.link_id),
    owner: ownerOf(row),
    address: request.address,
    userAgent: userAgentOf(request),
    micros: deps.clock.nowMicros(),
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
export type LinkAnswer = { location: string; cookie?: ClickCookie } | { notFound: true };

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
  queueClick(tracker, deps, live, input.request);
  const cookie = cookieFor(live, settings, input.cookie);
  return cookie ? { location, cookie } : { location };
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
  const row =
    isPlausibleLinkKey(input.program) && isPlausibleLinkKey(input.key)
      ? await linkInProgram(tracker, deps, input.program, input.key)
      : undefined;
  if (!row || !isLive(row)) throw new AppError('not_found', 'Referral link not found.');
  const settings = trackingSettings(row.program_type as ProgramType, row.settings);
  queueClick(tracker, deps, row, input.request);
  return {
    key: row.key,
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
