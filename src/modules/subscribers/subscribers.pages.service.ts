/** What the public pages show and do (share page, portal): no API key, the program is named by its public id. */
import { timingSafeEqual } from 'node:crypto';
import { type Deps, keylessContext } from '../../context.ts';
import { brandOf } from '../../core/branding.ts';

export type { Brand } from '../../core/branding.ts';

import { AppError } from '../../core/errors.ts';
import { firstNameOf, nextMilestone } from '../../core/milestones.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { ShortCache } from '../../core/short-cache.ts';
import { millisOn } from '../../core/time.ts';
import { readProgramByPublicId } from '../program/program.service.ts';
import { listMilestones, type UnlockedReward, unlockedRewardOf } from '../rewards/rewards.service.ts';
import * as repository from './subscribers.repository.ts';
import { createSubscriber } from './subscribers.service.ts';
import { type LinkBase, toSubscriber } from './subscribers.wire.ts';

export async function pageContext(deps: Deps, programPublicId: string) {
  const program = await readProgramByPublicId(deps.database.db, programPublicId);
  if (program?.type !== 'newsletter') return undefined;
  return { ctx: keylessContext(deps, program), program };
}

/** What the share page shows: the program and who shares it; undefined when the link names nothing. */
export async function getSharePage(deps: Deps, programPublicId: string, code: string) {
  const found = await pageContext(deps, programPublicId);
  if (!found) return undefined;
  const sharer = await repository.findSubscriberBy(deps.database.db, found.program.id, 'code', code);
  if (!sharer) return undefined;
  return {
    programName: found.program.name,
    brand: brandOf(found.program, found.program.programSettings),
    sharerFirstName: firstNameOf(sharer.name, sharer.email),
  };
}

export const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

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

export const sameSecret = (given: string, stored: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
};

export const LEADERBOARD_SIZE = 10;

/**
 * How long the portal reuses a program's milestones and leaderboard: every portal view of a
 * program reads the same two lists, which change far less often than they are read. The
 * subscriber's own count and rewards are always read fresh.
 */
export const PORTAL_CACHE_MS = 1000;

export type Milestone = { id: number; name: string; description: string; subscriberCount: number };

export type Leader = { id: number; firstName: string; count: number };

/** Per app (keyed by its database handle): program ids are only unique within one database. */
export const portalCaches = new WeakMap<
  Deps['database'],
  { milestones: ShortCache<number, Milestone[]>; leaders: ShortCache<number, Leader[]> }
>();

export function portalCachesOf({ database, clock }: Pick<Deps, 'database' | 'clock'>) {
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
  const ctx = keylessContext(deps, { id: programId, public_id: programPublicId, type: row.program_type });
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
  const settings = programSettingsOf('newsletter', row.program_settings);
  const leaders =
    settings.leaderboard_enabled === false
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
    brand: brandOf(
      { name: row.program_name, public_id: programPublicId, logo_digest: row.program_logo_digest },
      settings,
    ),
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
