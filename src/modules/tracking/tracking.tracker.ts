import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Deps } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { deleteOldest } from '../../core/oldest.ts';
import { present } from '../../core/present.ts';
import { customerMetrics } from '../../core/sales.ts';
import { ShortCache } from '../../core/short-cache.ts';
import { formatTimestamp, millisOn } from '../../core/time.ts';
import { COUNT_WINDOW_MS, saltDays, visitorHash } from '../../core/tracking.ts';
import type { DB } from '../../db/tables.ts';
import {
  addCounterDeltas,
  addDailyCounterDeltas,
  type CounterDelta,
} from '../counters/counters.repository.ts';
import { programMetrics, recordProgramActivity } from '../program/program.service.ts';
import * as repository from './tracking.repository.ts';

/**
 * The click tracker (issue 12): a click is answered at once and written within a second, in one
 * transaction per batch: the 24-hour visitor rule, the link's, owner's and program's figures
 * (totals and per day), and the click itself with its id and landing URL (issue 27). A crash
 * loses at most the clicks of that last second.
 */
export interface PendingClick {
  programId: number;
  linkId: number;
  owner: { kind: 'partner' | 'customer'; id: number };
  address: string;
  userAgent: string;
  micros: number;
  /** The click id answered to the visitor, and the landing URL it reported (issue 27). */
  clickId: string;
  landingUrl: string | null;
}

/** Clicks wait in memory at most this long before they are written. */
export const CLICK_FLUSH_MS = 500;
/** A batch this large is written at once. */
const MAX_PENDING = 2000;
/** How often old visitors and salts are dropped. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** How long a click id answers the fraud rules: older clicks are dropped. */
export const CLICK_KEEP_DAYS = 90;
/**
 * How long a link lookup is reused: a link archived or changed is followed as it was for at most
 * this long (like API keys, a documented short lifetime), and a busy link costs no query.
 */
export const LINK_CACHE_MS = 1000;
const LINK_CACHE_SIZE = 10_000;

/**
 * A fresh click id: 12 characters of base64url over 72 random bits, cut from a pool of random
 * bytes filled 512 ids at a time (a call into the system's generator per click costs the click
 * path more than the rest of the id).
 */
export function nextClickId(): string {
  if (poolAt >= pool.length) {
    pool = randomBytes(CLICK_ID_BYTES * 512);
    poolAt = 0;
  }
  const id = pool.toString('base64url', poolAt, poolAt + CLICK_ID_BYTES);
  poolAt += CLICK_ID_BYTES;
  return id;
}
const CLICK_ID_BYTES = 9;
let pool = Buffer.alloc(0);
let poolAt = 0;

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
  /** The id each visitor's click on a link got in the pending batch. */
  #ids = new Map<string, string>();
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

  /**
   * Queues a click and answers its id. A visitor's repeat on the same link within the batch (a
   * reload, `/r/…` then the script) is the same click: it gets the first one's id, and one row.
   */
  add(click: Omit<PendingClick, 'clickId'>): string {
    const visit = `${click.programId}:${click.linkId}:${click.address}\u0000${click.userAgent}`;
    let clickId = this.#ids.get(visit);
    if (clickId === undefined) this.#ids.set(visit, (clickId = nextClickId()));
    this.#pending.push({ ...click, clickId });
    if (this.#pending.length >= MAX_PENDING) void this.flush();
    else if (!this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => void this.flush(), CLICK_FLUSH_MS);
      this.#timer.unref();
    }
    return clickId;
  }

  /** Writes every pending click; resolves once they (and any earlier batch) are written. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    this.#ids.clear();
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
        // Every click id answered keeps its row (a repeat within the batch shares the first's).
        const firstOfId = new Set<string>();
        await repository.insertClicks(
          trx,
          batch
            .filter((click) => !firstOfId.has(click.clickId) && firstOfId.add(click.clickId))
            .map((click) => ({
              program_id: click.programId,
              public_id: click.clickId,
              link_id: click.linkId,
              owner_kind: click.owner.kind,
              owner_id: click.owner.id,
              landing_url: click.landingUrl,
              clicked_at: formatTimestamp(click.micros),
            })),
        );
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
      await repository.pruneClicks(db, formatTimestamp((now - CLICK_KEEP_DAYS * 86_400_000) * 1000));
    } catch (error) {
      this.deps.log.warn({ err: error }, 'old click visitors not pruned');
    }
  }
}
