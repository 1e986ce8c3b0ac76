import { createHash, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Deps, ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { newKey, randomAlphanumeric } from '../../core/ids.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import {
  firstNameOf,
  milestonesToUnlock,
  nextMilestone,
  referralCountDelta,
  type SubscriberStatus,
  subscriberStatusLabel,
} from '../../core/milestones.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { programMetrics } from '../../core/program-stats.ts';
import { ShortCache } from '../../core/short-cache.ts';
import { millisOn, nowTimestamp } from '../../core/time.ts';
import { uniqueViolationColumn } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { queueEmail, recordEvent } from '../../outbox/outbox.ts';
import { escapeText } from '../../pages/rendered.tsx';
import { readProgram, readProgramByPublicId, recordProgramActivity } from '../program/program.service.ts';
import {
  listMilestones,
  type RewardRow,
  type UnlockedReward,
  type UnlockForSubscribersPast,
  unlockedRewardIds,
  unlockedRewardOf,
  unlockedRewardsOf,
  unlockRewardOnce,
} from '../rewards/rewards.service.ts';
import * as repository from './subscribers.repository.ts';
import type { CreateSubscriberBody, SubscriberChanges, UpdateSubscriberBody } from './subscribers.schemas.ts';

export type { SubscriberRow } from './subscribers.repository.ts';

type SubscriberRow = repository.SubscriberRow;

/**
 * Where links point: `PUBLIC_URL` or the request's own origin, and the program's public id.
 * Routes and pages build it from the request; services never see HTTP.
 */
export interface LinkBase {
  baseUrl: string;
}

const subscriberNotFound = () => new AppError('not_found', 'Subscriber not found.');

const nullableBoolean = (value: boolean | number | null) => (value === null ? null : Boolean(value));

const shareLinkOf = (base: LinkBase, programPublicId: string, row: Pick<SubscriberRow, 'code'>) =>
  `${base.baseUrl}/share/${encodeURIComponent(programPublicId)}/${encodeURIComponent(row.code)}`;

const portalLinkOf = (base: LinkBase, programPublicId: string, row: Pick<SubscriberRow, 'code' | 'secret'>) =>
  `${base.baseUrl}/portal/${encodeURIComponent(programPublicId)}/${encodeURIComponent(row.code)}/${row.secret}`;

function toSubscriber(
  ctx: ProgramContext,
  base: LinkBase,
  row: SubscriberRow,
  rewards: Map<number, UnlockedReward[]>,
) {
  return {
    id: row.public_id,
    name: row.name,
    email: row.email,
    is_referred: Boolean(row.is_referred),
    tos: nullableBoolean(row.tos),
    marketing_consent: nullableBoolean(row.marketing_consent),
    status: subscriberStatusLabel[row.status as SubscriberStatus] ?? row.status,
    approved: Boolean(row.approved),
    portal_link: portalLinkOf(base, ctx.program.publicId, row),
    share_link: shareLinkOf(base, ctx.program.publicId, row),
    referrals_count: Number(row.referrals_count),
    reward: rewards.get(Number(row.id)) ?? [],
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: null,
  };
}

export type Subscriber = ReturnType<typeof toSubscriber>;

async function serialize(db: Kysely<DB>, ctx: ProgramContext, base: LinkBase, row: SubscriberRow) {
  return toSubscriber(ctx, base, row, await unlockedRewardsOf(db, ctx.program.id, [Number(row.id)]));
}

async function serializeMany(db: Kysely<DB>, ctx: ProgramContext, base: LinkBase, rows: SubscriberRow[]) {
  const rewards = await unlockedRewardsOf(
    db,
    ctx.program.id,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => toSubscriber(ctx, base, row, rewards));
}

/** A `{id|email}` path segment: the subscriber with that id, else the one with that e-mail. */
async function findBySegment(db: Kysely<DB>, programId: number, segment: string) {
  return (
    (await repository.findSubscriberBy(db, programId, 'public_id', segment)) ??
    (await repository.findSubscriberBy(db, programId, 'email_lower', segment.toLowerCase()))
  );
}

async function findByRef(db: Kysely<DB>, programId: number, ref: { id?: string; email?: string }) {
  if (ref.id !== undefined) return repository.findSubscriberBy(db, programId, 'public_id', ref.id);
  if (ref.email !== undefined)
    return repository.findSubscriberBy(db, programId, 'email_lower', ref.email.toLowerCase());
  return undefined;
}

/** What a create request says, canonically: the same request again replays the stored subscriber. */
function requestDigest(body: CreateSubscriberBody): string {
  const canonical = [
    body.email.toLowerCase(),
    body.id ?? null,
    body.name ?? null,
    body.tos === undefined ? null : booleanOf(body.tos, false),
    body.marketing_consent === undefined ? null : booleanOf(body.marketing_consent, false),
    booleanOf(body.approved, true),
    body.status ?? 'active',
    body.referral?.id ?? null,
    body.referral?.email?.toLowerCase() ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

/**
 * Moves a referrer's count by `delta` in the caller's transaction, keeps the program's
 * "referring" figure in step, and unlocks the milestones the new count reaches.
 */
async function moveReferrerCount(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  base: LinkBase,
  referrerId: number,
  delta: number,
  now: string,
) {
  if (delta === 0) return;
  const referrer = await repository.addToReferralsCount(trx, ctx.program.id, referrerId, delta);
  if (!referrer) return;
  const count = Number(referrer.referrals_count);
  if (delta > 0 && count === delta)
    await recordProgramActivity(trx, ctx.program.id, now, { [programMetrics.referringCustomers]: 1 });
  if (delta < 0 && count === 0)
    await recordProgramActivity(trx, ctx.program.id, now, { [programMetrics.referringCustomers]: -1 });
  if (delta > 0) await unlockReached(trx, ctx, base, referrer, now);
}

/**
 * Unlocks every milestone the subscriber's count reached and it has not unlocked yet. Each unlock
 * is recorded once (rewards module), and only the writer that recorded it sends the e-mail and
 * records `subscriber.rewarded`.
 */
async function unlockReached(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  base: LinkBase,
  subscriber: SubscriberRow,
  now: string,
  only?: RewardRow,
) {
  const programId = ctx.program.id;
  const count = Number(subscriber.referrals_count);
  const milestones = only ? [only] : await listMilestones(trx, programId);
  const reachable = milestones
    .map((row) => ({ row, id: Number(row.id), subscriberCount: Number(row.subscriber_count) }))
    .filter((m) => m.subscriberCount <= count);
  if (reachable.length === 0) return;
  const unlocked = await unlockedRewardIds(trx, programId, Number(subscriber.id));
  const newly: RewardRow[] = [];
  for (const milestone of milestonesToUnlock(count, reachable, unlocked)) {
    if (await unlockRewardOnce(trx, programId, Number(subscriber.id), milestone.id, now))
      newly.push(milestone.row);
  }
  if (newly.length === 0) return;
  const payload = await serialize(trx, ctx, base, subscriber);
  const program = await readProgram(trx, programId);
  for (const reward of newly) {
    await recordEvent(trx, programId, 'subscriber.rewarded', payload, now);
    await queueEmail(
      trx,
      programId,
      rewardEmail(program?.name ?? 'Newsletter', subscriber, reward, payload.portal_link),
      now,
    );
  }
}

function rewardEmail(programName: string, subscriber: SubscriberRow, reward: RewardRow, portalLink: string) {
  const greeting = subscriber.name ? `Hello ${subscriber.name},` : 'Hello,';
  const value = reward.fulfillment_value ? `\n\n${reward.fulfillment_value}` : '';
  return {
    to: subscriber.email,
    subject: `You unlocked ${reward.name} — ${programName}`,
    text: `${greeting}\n\nThank you for sharing ${programName}: you unlocked "${reward.name}".${
      reward.description ? `\n${reward.description}` : ''
    }${value}\n\nYour referral portal: ${portalLink}\n`,
    html: `<p>${escapeText(greeting)}</p><p>Thank you for sharing ${escapeText(programName)}: you unlocked <strong>${escapeText(
      reward.name,
    )}</strong>.</p>${reward.description ? `<p>${escapeText(reward.description)}</p>` : ''}${
      reward.fulfillment_value ? `<p>${escapeText(reward.fulfillment_value)}</p>` : ''
    }<p><a href="${escapeText(portalLink)}">Your referral portal</a></p>`,
  };
}

/** Sent to who signs up on a share page: the portal's secret link goes to the inbox, not the screen. */
function welcomeEmail(programName: string, subscriber: Subscriber) {
  const greeting = subscriber.name ? `Hello ${subscriber.name},` : 'Hello,';
  return {
    to: subscriber.email,
    subject: `Welcome to ${programName}`,
    text: `${greeting}\n\nYou are subscribed to ${programName}.\n\nShare it with friends: ${subscriber.share_link}\nYour referral portal: ${subscriber.portal_link}\n`,
    html: `<p>${escapeText(greeting)}</p><p>You are subscribed to ${escapeText(programName)}.</p><p>Share it with friends: <a href="${escapeText(
      subscriber.share_link,
    )}">${escapeText(subscriber.share_link)}</a></p><p><a href="${escapeText(subscriber.portal_link)}">Your referral portal</a></p>`,
  };
}

/** A unique violation of a subscriber write as a 422 on its field (`prefix`: `update.` when wrapped). */
function takenError(error: unknown, prefix = ''): unknown {
  const column = uniqueViolationColumn(error);
  const field = column === 'email_lower' ? 'email' : column === 'public_id' ? 'id' : undefined;
  return field === undefined ? error : fieldError(`${prefix}${field}`, 'taken');
}

export interface CreateOutcome {
  subscriber: Subscriber;
  /** False when the same request was stored before and is answered again (insert-or-replay). */
  created: boolean;
}

/** `POST /v1/subscribers` (and the share page's form). */
export async function createSubscriber(
  ctx: ProgramContext,
  body: CreateSubscriberBody,
  base: LinkBase,
  options: { welcomeEmail?: boolean } = {},
): Promise<CreateOutcome> {
  const ref = body.referral;
  const emailLower = body.email.toLowerCase();
  const selfReferral =
    ref !== undefined &&
    ((ref.email !== undefined && ref.email.toLowerCase() === emailLower) ||
      (ref.id !== undefined && body.id !== undefined && ref.id === body.id));
  if (selfReferral) throw fieldError('referral', 'refused', 'A subscriber cannot refer itself.');
  const digest = requestDigest(body);
  const programId = ctx.program.id;
  try {
    // On SQLite concurrent creates share one commit, each in its own savepoint (db/write-batcher.ts).
    return await ctx.database.inWriteTransaction(async (trx) => {
      const now = nowTimestamp(ctx.clock);
      let referrer: SubscriberRow | undefined;
      if (ref !== undefined && (ref.id !== undefined || ref.email !== undefined)) {
        referrer = await findByRef(trx, programId, ref);
        if (!referrer) throw fieldError('referral', 'invalid');
      }
      const values = {
        program_id: programId,
        public_id: body.id ?? newKey(),
        email: body.email,
        email_lower: emailLower,
        name: body.name ?? null,
        tos: body.tos === undefined ? null : booleanOf(body.tos, false),
        marketing_consent:
          body.marketing_consent === undefined ? null : booleanOf(body.marketing_consent, false),
        approved: booleanOf(body.approved, true),
        status: body.status ?? 'active',
        code: newKey(),
        secret: randomAlphanumeric(32),
        is_referred: referrer !== undefined,
        referrer_id: referrer ? Number(referrer.id) : null,
        request_digest: digest,
        created_at: now,
        updated_at: now,
      };
      const outcome = await insertOrReplay({
        find: () => repository.findSubscriberBy(trx, programId, 'email_lower', emailLower),
        insert: async () => {
          const row = await repository.insertSubscriberIfFree(trx, values);
          if (row) return row;
          // Not the e-mail (insertOrReplay looks that up next): the id, when it is taken.
          const emailTaken = await repository.findSubscriberBy(trx, programId, 'email_lower', emailLower);
          if (!emailTaken && body.id !== undefined) {
            const idTaken = await repository.findSubscriberBy(trx, programId, 'public_id', body.id);
            if (idTaken) throw fieldError('id', 'taken');
          }
          return undefined;
        },
        sameRequest: (stored) => stored.request_digest === digest,
        taken: () => fieldError('email', 'taken'),
      });
      if ('replayed' in outcome)
        return { subscriber: await serialize(trx, ctx, base, outcome.replayed), created: false };
      const row = outcome.created;
      await recordProgramActivity(trx, programId, now, {
        [programMetrics.customers]: 1,
        [programMetrics.referredCustomers]: referrer ? 1 : 0,
      });
      if (referrer) {
        const delta = referralCountDelta(undefined, { status: row.status, approved: Boolean(row.approved) });
        await moveReferrerCount(trx, ctx, base, Number(referrer.id), delta, now);
      }
      const subscriber = await serialize(trx, ctx, base, row);
      await recordEvent(trx, programId, 'subscriber.created', subscriber, now);
      if (options.welcomeEmail) {
        const program = await readProgram(trx, programId);
        await queueEmail(trx, programId, welcomeEmail(program?.name ?? 'Newsletter', subscriber), now);
      }
      return { subscriber, created: true };
    });
  } catch (error) {
    throw takenError(error);
  }
}

export async function getSubscriber(ctx: ProgramContext, segment: string, base: LinkBase) {
  const db = ctx.database.db;
  const row = await findBySegment(db, ctx.program.id, segment);
  if (!row) throw subscriberNotFound();
  return serialize(db, ctx, base, row);
}

const referStatusFilter: Record<string, boolean> = { referred: true, non_referred: false };

/** `GET /v1/subscribers`: an unknown `refer_status` answers 404, as the spec says. */
export async function listSubscribers(
  ctx: ProgramContext,
  query: PageRequest & { refer_status?: string },
  base: LinkBase,
) {
  let isReferred: boolean | undefined;
  if (query.refer_status !== undefined) {
    isReferred = referStatusFilter[query.refer_status];
    if (isReferred === undefined)
      throw new AppError('not_found', 'Invalid refer_status: use referred or non_referred.');
  }
  const db = ctx.database.db;
  const rows = await repository.listSubscribers(
    db,
    ctx.program.id,
    isReferred === undefined ? {} : { isReferred },
    pageWindow(query),
    query.sort,
  );
  return serializeMany(db, ctx, base, rows);
}

export async function searchSubscribers(
  ctx: ProgramContext,
  query: PageRequest & { id?: string; email?: string },
  base: LinkBase,
) {
  const db = ctx.database.db;
  const rows = await repository.listSubscribers(
    db,
    ctx.program.id,
    {
      ...(query.id !== undefined ? { publicId: query.id } : {}),
      ...(query.email !== undefined ? { emailLower: query.email.toLowerCase() } : {}),
    },
    pageWindow(query),
    query.sort,
  );
  return serializeMany(db, ctx, base, rows);
}

async function getForRequestOrThrow(
  db: Kysely<DB>,
  programId: number,
  segment: string | undefined,
  ref: { id?: string; email?: string },
) {
  if (segment !== undefined) {
    const row = await findBySegment(db, programId, segment);
    if (!row) throw subscriberNotFound();
    return row;
  }
  if (ref.id === undefined && ref.email === undefined) throw fieldError('id', 'required');
  const row = await findByRef(db, programId, ref);
  if (!row) throw subscriberNotFound();
  return row;
}

/** Splits an update body: the identifier (`id` or `email`, body form only) and the changes. */
function splitBody(segment: string | undefined, body: UpdateSubscriberBody) {
  const { update, ...flat } = body;
  if (update !== undefined) {
    const ref =
      segment === undefined
        ? { ...(flat.id ? { id: flat.id } : flat.email ? { email: flat.email } : {}) }
        : {};
    return { ref, changes: update as SubscriberChanges, prefix: 'update.' };
  }
  if (segment !== undefined) return { ref: {}, changes: flat as SubscriberChanges, prefix: '' };
  // Flat and named in the body: the identifier is not a change.
  if (flat.id !== undefined) {
    const { id, ...changes } = flat;
    return { ref: { id }, changes: changes as SubscriberChanges, prefix: '' };
  }
  if (flat.email !== undefined) {
    const { email, ...changes } = flat;
    return { ref: { email }, changes: changes as SubscriberChanges, prefix: '' };
  }
  return { ref: {}, changes: flat as SubscriberChanges, prefix: '' };
}

/** `PUT /v1/subscribers/{id|email}` or `PUT /v1/subscribers` with `id` or `email`; status moves in any order. */
export async function updateSubscriber(
  ctx: ProgramContext,
  segment: string | undefined,
  body: UpdateSubscriberBody,
  base: LinkBase,
) {
  const { ref, changes, prefix } = splitBody(segment, body);
  const programId = ctx.program.id;
  try {
    return await ctx.database.db.transaction().execute(async (trx) => {
      const now = nowTimestamp(ctx.clock);
      const row = await getForRequestOrThrow(trx, programId, segment, ref);
      const values: Parameters<typeof repository.updateSubscriber>[3] = { updated_at: now };
      if (changes.email !== undefined) {
        values.email = changes.email;
        values.email_lower = changes.email.toLowerCase();
      }
      if (changes.name !== undefined) values.name = changes.name;
      if (changes.id !== undefined) values.public_id = changes.id;
      if (changes.tos !== undefined) values.tos = booleanOf(changes.tos, false);
      if (changes.marketing_consent !== undefined)
        values.marketing_consent = booleanOf(changes.marketing_consent, false);
      if (changes.approved !== undefined) values.approved = booleanOf(changes.approved, true);
      if (changes.status !== undefined) values.status = changes.status;
      const updated = await repository.updateSubscriber(trx, programId, Number(row.id), values);
      if (row.referrer_id !== null) {
        const delta = referralCountDelta(
          { status: row.status, approved: Boolean(row.approved) },
          { status: updated.status, approved: Boolean(updated.approved) },
        );
        await moveReferrerCount(trx, ctx, base, Number(row.referrer_id), delta, now);
      }
      const subscriber = await serialize(trx, ctx, base, updated);
      await recordEvent(trx, programId, 'subscriber.updated', subscriber, now);
      return subscriber;
    });
  } catch (error) {
    throw takenError(error, prefix);
  }
}

/** `DELETE /v1/subscribers/{id|email}` or with `id` or `email` in the body: permanent. */
export async function deleteSubscriber(
  ctx: ProgramContext,
  segment: string | undefined,
  ref: { id?: string; email?: string },
  base: LinkBase,
) {
  const programId = ctx.program.id;
  await ctx.database.db.transaction().execute(async (trx) => {
    const now = nowTimestamp(ctx.clock);
    const row = await getForRequestOrThrow(trx, programId, segment, ref);
    const subscriber = await serialize(trx, ctx, base, row);
    await recordProgramActivity(trx, programId, row.created_at, {
      [programMetrics.customers]: -1,
      [programMetrics.referredCustomers]: row.is_referred ? -1 : 0,
    });
    if (Number(row.referrals_count) > 0)
      await recordProgramActivity(trx, programId, now, { [programMetrics.referringCustomers]: -1 });
    if (row.referrer_id !== null) {
      const delta = referralCountDelta({ status: row.status, approved: Boolean(row.approved) }, undefined);
      await moveReferrerCount(trx, ctx, base, Number(row.referrer_id), delta, now);
    }
    await repository.deleteSubscriber(trx, programId, Number(row.id));
    await recordEvent(trx, programId, 'subscriber.deleted', subscriber, now);
  });
}

/**
 * For the rewards routes: a reward created or lowered to a threshold that subscribers already
 * reached unlocks for each of them, in the reward's transaction.
 */
export function unlockForSubscribersPast(ctx: ProgramContext, base: LinkBase): UnlockForSubscribersPast {
  return async (trx, reward, now) => {
    const rows = await repository.listSubscribersPast(trx, ctx.program.id, Number(reward.subscriber_count));
    for (const row of rows) await unlockReached(trx, ctx, base, row, now, reward);
  };
}

// The public pages (subscribers.pages.tsx): no API key, the program is named by its public id.

/**
 * The service context of a public page: it acts for the program the URL names, when that is a
 * newsletter program, not for an API key (hence no key fields).
 */
/** A page's program context: the program as the pages name it, with no API key behind it. */
function pageProgramContext(
  deps: Deps,
  program: { id: number; public_id: string; type: ProgramContext['program']['type'] },
): ProgramContext {
  return {
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
}

async function pageContext(deps: Deps, programPublicId: string) {
  const program = await readProgramByPublicId(deps.database.db, programPublicId);
  if (program?.type !== 'newsletter') return undefined;
  return { ctx: pageProgramContext(deps, program), program };
}

/** What the share page shows: the program and who shares it; undefined when the link names nothing. */
export async function getSharePage(deps: Deps, programPublicId: string, code: string) {
  const found = await pageContext(deps, programPublicId);
  if (!found) return undefined;
  const sharer = await repository.findSubscriberBy(deps.database.db, found.program.id, 'code', code);
  if (!sharer) return undefined;
  return { programName: found.program.name, sharerFirstName: firstNameOf(sharer.name, sharer.email) };
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export type ShareSignup =
  | { kind: 'not_found' }
  | { kind: 'invalid'; errors: { name?: string; email?: string; consent?: string } }
  | { kind: 'taken' }
  | { kind: 'subscribed'; name: string | null; shareLink: string };

/**
 * The share page's form: a subscriber referred by the sharer, with a welcome e-mail carrying the
 * portal link. The same e-mail twice (in any case, or the same form posted again) is `taken`.
 */
export async function signUpFromSharePage(
  deps: Deps,
  programPublicId: string,
  code: string,
  form: { name: string; email: string; consent: boolean },
  base: LinkBase,
): Promise<ShareSignup> {
  const found = await pageContext(deps, programPublicId);
  if (!found) return { kind: 'not_found' };
  const sharer = await repository.findSubscriberBy(deps.database.db, found.program.id, 'code', code);
  if (!sharer) return { kind: 'not_found' };
  const errors: { name?: string; email?: string; consent?: string } = {};
  if (form.email === '') errors.email = 'Enter your e-mail address.';
  else if (form.email.length > 255 || !EMAIL.test(form.email))
    errors.email = 'Enter a valid e-mail address, like name@example.com.';
  if (form.name.length > 255) errors.name = 'Enter at most 255 characters.';
  if (!form.consent) errors.consent = 'Tick the box to subscribe.';
  if (Object.keys(errors).length > 0) return { kind: 'invalid', errors };
  if (form.email.toLowerCase() === sharer.email_lower) return { kind: 'taken' };
  try {
    const outcome = await createSubscriber(
      found.ctx,
      {
        email: form.email,
        ...(form.name ? { name: form.name } : {}),
        tos: true,
        marketing_consent: true,
        referral: { id: sharer.public_id },
      },
      base,
      { welcomeEmail: true },
    );
    if (!outcome.created) return { kind: 'taken' };
    return { kind: 'subscribed', name: outcome.subscriber.name, shareLink: outcome.subscriber.share_link };
  } catch (error) {
    if (error instanceof AppError && error.status === 422 && error.problemOn('email'))
      return { kind: 'taken' };
    throw error;
  }
}

const sameSecret = (given: string, stored: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
};

const LEADERBOARD_SIZE = 10;

/**
 * How long the portal reuses a program's milestones and leaderboard: every portal view of a
 * program reads the same two lists, which change far less often than they are read. The
 * subscriber's own count and rewards are always read fresh.
 */
export const PORTAL_CACHE_MS = 1000;

export type Milestone = { id: number; name: string; description: string; subscriberCount: number };
export type Leader = { id: number; firstName: string; count: number };

/** Per app (keyed by its database handle): program ids are only unique within one database. */
const portalCaches = new WeakMap<
  Deps['database'],
  { milestones: ShortCache<number, Milestone[]>; leaders: ShortCache<number, Leader[]> }
>();

function portalCachesOf({ database, clock }: Pick<Deps, 'database' | 'clock'>) {
  let caches = portalCaches.get(database);
  if (!caches) {
    const options = { ttlMs: PORTAL_CACHE_MS, capacity: 10_000, now: millisOn(clock) };
    caches = { milestones: new ShortCache(options), leaders: new ShortCache(options) };
    portalCaches.set(database, caches);
  }
  return caches;
}

/**
 * What the subscriber portal shows; undefined when the program, the code or the secret is wrong
 * (all answer the same 404 page). The program (its `leaderboard_enabled`), the subscriber and the
 * rewards it unlocked are one read on every view.
 */
export async function getPortalPage(
  deps: Deps,
  programPublicId: string,
  code: string,
  secret: string,
  base: LinkBase,
) {
  const db = deps.database.db;
  const rows = await repository.findPortalRows(db, programPublicId, code);
  const row = rows[0];
  if (row?.program_type !== 'newsletter' || !sameSecret(secret, row.secret)) return undefined;
  const programId = Number(row.program_id);
  const subscriberId = Number(row.id);
  const unlocked: UnlockedReward[] = [];
  for (const r of rows) {
    if (r.reward_id === null || r.unlocked_at === null) continue;
    unlocked.push(
      unlockedRewardOf(
        {
          id: r.reward_id,
          name: r.reward_name ?? '',
          description: r.reward_description ?? '',
          fulfillment_type: r.reward_fulfillment_type ?? '',
          fulfillment_value: r.reward_fulfillment_value ?? '',
          subscriber_count: r.reward_subscriber_count ?? 0,
          created_at: r.reward_created_at ?? '',
          updated_at: r.reward_updated_at ?? '',
        },
        r.unlocked_at,
      ),
    );
  }
  const ctx = pageProgramContext(deps, { id: programId, public_id: programPublicId, type: row.program_type });
  const subscriber = toSubscriber(ctx, base, row, new Map([[subscriberId, unlocked]]));
  const caches = portalCachesOf(deps);
  const milestones = await caches.milestones.get(programId, async () =>
    (await listMilestones(db, programId)).map((reward) => ({
      id: Number(reward.id),
      name: reward.name,
      description: reward.description,
      subscriberCount: Number(reward.subscriber_count),
    })),
  );
  const count = subscriber.referrals_count;
  const next = nextMilestone(count, milestones);
  // The list itself is the cached one (the same object for every reader while it is reused), so
  // the page can reuse what it rendered of it; the reader's place in it is this request's own.
  const leaders =
    programSettingsOf('newsletter', row.program_settings).leaderboard_enabled === false
      ? undefined
      : await caches.leaders.get(programId, async () =>
          (await repository.listLeaders(db, programId, LEADERBOARD_SIZE)).map((leader) => ({
            id: Number(leader.id),
            firstName: firstNameOf(leader.name, leader.email),
            count: Number(leader.referrals_count),
          })),
        );
  return {
    programName: row.program_name,
    subscriber,
    milestones,
    next: next
      ? { name: next.name, needed: next.subscriberCount, remaining: next.subscriberCount - count }
      : undefined,
    leaderboard: leaders
      ? { leaders, you: leaders.findIndex((leader) => leader.id === subscriberId) }
      : undefined,
  };
}
