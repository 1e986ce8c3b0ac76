import { dayOf } from '../../core/time.ts';
import { createReward, deleteReward, getReward, listRewards } from '../rewards/rewards.service.ts';
import {
  listSubscribers,
  searchSubscribers,
  unlockForSubscribersPast,
} from '../subscribers/subscribers.service.ts';
import { found, refusedAsErrors } from './console.outcomes.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** Newsletter programs: their subscribers, and the milestones (rewards) referrals unlock. */

export { CreateRewardBody } from '../rewards/rewards.schemas.ts';

import type { CreateRewardBody } from '../rewards/rewards.schemas.ts';

export const PAGE_SIZE = 50;

type Links = { baseUrl: string };

/** One page of subscribers, newest first; the search names one by e-mail or id. */
export async function subscribersPage(program: ConsoleProgram, search: string, page: number, links: Links) {
  const window = { page, limit: PAGE_SIZE, sort: 'desc' as const };
  const rows =
    search === ''
      ? await listSubscribers(program.ctx, window, links)
      : await searchSubscribers(
          program.ctx,
          { ...window, ...(search.includes('@') ? { email: search } : { id: search }) },
          links,
        );
  return {
    items: rows.slice(0, PAGE_SIZE).map((row) => ({
      id: row.id ?? row.email,
      name: row.name || row.email,
      email: row.email,
      status: row.status,
      referred: row.is_referred,
      referrals: row.referrals_count,
      rewards: row.reward.length,
      created: dayOf(row.created_at),
    })),
    hasNext: rows.length > PAGE_SIZE,
  };
}

export const fulfillmentChoices = [
  { value: 'url_link', label: 'A link' },
  { value: 'generic_coupon', label: 'A coupon code' },
  { value: 'retailer_gift_card', label: 'A gift card' },
] as const;

/** The milestones, fewest referrals first, as subscribers reach them. */
export async function milestonesOf(program: ConsoleProgram) {
  const rows = await listRewards(program.ctx, { page: 1, limit: 200, sort: 'desc' });
  return rows
    .slice(0, 200)
    .map((row) => ({
      id: String(row.id),
      name: row.name,
      description: row.description,
      referrals: row.subscriber_count,
      fulfillment: row.fulfillment_type_name,
      value: row.fulfillment_value,
    }))
    .sort((a, b) => a.referrals - b.referrals);
}

export const addMilestone = (program: ConsoleProgram, body: CreateRewardBody, links: Links) =>
  refusedAsErrors(async () => {
    const reward = await createReward(program.ctx, body, unlockForSubscribersPast(program.ctx, links));
    await logActivity(program, 'reward.create', {
      subject: String(reward.id),
      changes: {
        name: { before: null, after: reward.name },
        subscribers_count: { before: null, after: reward.subscriber_count },
      },
    });
  }, 'name');

/** Deletes a milestone of the program; false when it has none of that id. */
export async function removeMilestone(program: ConsoleProgram, id: string) {
  const milestone = await found(() => getReward(program.ctx, id));
  if (!milestone) return false;
  await deleteReward(program.ctx, id);
  await logActivity(program, 'reward.delete', {
    subject: id,
    changes: { name: { before: milestone.name, after: null } },
  });
  return true;
}
