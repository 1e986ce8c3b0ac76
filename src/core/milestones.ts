import { formatTimestamp } from './time.ts';

/**
 * Newsletter referral rules, decided without I/O: which referred subscribers count towards their
 * referrer's `referrals_count`, how a change of one subscriber moves that count, and which
 * milestone rewards a count unlocks.
 */

/** Lower case in, capitalised out (spec "Subscriber"). */
export const subscriberStatuses = ['active', 'rejected', 'suspended'] as const;
export type SubscriberStatus = (typeof subscriberStatuses)[number];

export const subscriberStatusLabel = {
  active: 'Active',
  rejected: 'Rejected',
  suspended: 'Suspended',
} as const satisfies Record<SubscriberStatus, string>;

/** A referred subscriber counts for its referrer while it is active and approved. */
export function countsAsReferral(subscriber: { status: string; approved: boolean }): boolean {
  return subscriber.status === 'active' && subscriber.approved;
}

/**
 * How a change of a referred subscriber moves its referrer's count: +1 when it starts counting,
 * −1 when it stops (deleted is `after: undefined`), 0 otherwise.
 */
export function referralCountDelta(
  before: { status: string; approved: boolean } | undefined,
  after: { status: string; approved: boolean } | undefined,
): -1 | 0 | 1 {
  const was = before !== undefined && countsAsReferral(before);
  const is = after !== undefined && countsAsReferral(after);
  if (was === is) return 0;
  return is ? 1 : -1;
}

export interface Milestone {
  id: number;
  subscriberCount: number;
}

/**
 * The milestones a subscriber with `referralsCount` counting referrals reaches and has not
 * unlocked yet, lowest threshold first. An unlocked milestone stays unlocked, so nothing here
 * ever takes one back.
 */
export function milestonesToUnlock<M extends Milestone>(
  referralsCount: number,
  milestones: readonly M[],
  unlocked: ReadonlySet<number>,
): M[] {
  return milestones
    .filter((m) => m.subscriberCount <= referralsCount && !unlocked.has(m.id))
    .sort((a, b) => a.subscriberCount - b.subscriberCount || a.id - b.id);
}

/** The next milestone above the count (the portal's progress bar), if any. */
export function nextMilestone<M extends Milestone>(
  referralsCount: number,
  milestones: readonly M[],
): M | undefined {
  return milestones
    .filter((m) => m.subscriberCount > referralsCount)
    .sort((a, b) => a.subscriberCount - b.subscriberCount || a.id - b.id)[0];
}

/** Fulfilment types and their labels (spec "Reward (newsletter program)"). */
export const fulfillmentTypeNames = {
  url_link: 'URL',
  generic_coupon: 'Coupon code',
  retailer_gift_card: 'Gift card',
} as const;
export type FulfillmentType = keyof typeof fulfillmentTypeNames;

/** First name for the leaderboard: the first word of the name, or the e-mail's local part's first letter. */
export function firstNameOf(name: string | null, email: string): string {
  const first = name?.trim().split(/\s+/)[0];
  if (first) return first;
  return `${email.charAt(0).toUpperCase()}.`;
}

/** Bounds of `referral_pending_days` (newsletter programs; issue 27). */
export const referralPendingDaysRange = { minimum: 0, maximum: 365 } as const;

/**
 * A referred subscriber's pending window (`referral_pending_days`): until `pendingUntil` it counts
 * for no one; one that unsubscribes (stops counting) inside the window is `lapsed` and never counts.
 */
export interface ReferralWindow {
  pendingUntil: string | null;
  lapsedAt: string | null;
}

export const noWindow: ReferralWindow = { pendingUntil: null, lapsedAt: null };

/** The window of a referral a fraud flag holds: it ends only when a person decides the flag. */
export const heldWindow: ReferralWindow = { pendingUntil: '9999-12-31T23:59:59.999999Z', lapsedAt: null };

/** The window a new referred subscriber starts with: none when the program has no pending days. */
export function openingWindow(pendingDays: number, nowMicros: number): ReferralWindow {
  if (pendingDays <= 0) return noWindow;
  return { pendingUntil: formatTimestamp(nowMicros + pendingDays * 86_400_000_000), lapsedAt: null };
}

type Counting = { status: string; approved: boolean };

/**
 * How a change of a referred subscriber moves its referrer's count, with its window: a lapsed one
 * never moves it; inside the window nothing moves, and stopping to count lapses it; a window that
 * has ended (not yet closed by `closeWindow`) closes with the change, counting what `after` counts.
 * `at` is the change's time (stored timestamps compare as text).
 */
export function windowedReferralChange(
  window: ReferralWindow,
  before: Counting,
  after: Counting | undefined,
  at: string,
): { delta: -1 | 0 | 1; window: ReferralWindow } {
  if (window.lapsedAt !== null) return { delta: 0, window };
  if (window.pendingUntil === null) return { delta: referralCountDelta(before, after), window };
  if (at < window.pendingUntil) {
    const unsubscribed = countsAsReferral(before) && (after === undefined || !countsAsReferral(after));
    return { delta: 0, window: unsubscribed ? { pendingUntil: null, lapsedAt: at } : window };
  }
  return { delta: after !== undefined && countsAsReferral(after) ? 1 : 0, window: noWindow };
}

/** A window that has ended: the subscriber counts from now on when it still counts. */
export function closeWindow(subscriber: Counting): -1 | 0 | 1 {
  return countsAsReferral(subscriber) ? 1 : 0;
}
