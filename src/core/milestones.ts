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
