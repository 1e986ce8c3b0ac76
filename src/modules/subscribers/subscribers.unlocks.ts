import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { milestonesToUnlock } from '../../core/milestones.ts';
import { programMetrics } from '../../core/program-stats.ts';
import type { DB } from '../../db/tables.ts';
import { queueEmail, recordEvent } from '../../outbox/outbox.ts';
import { escapeText } from '../../pages/rendered.tsx';
import { readProgram, recordProgramActivity } from '../program/program.service.ts';
import {
  listMilestones,
  type RewardRow,
  type UnlockForSubscribersPast,
  unlockedRewardIds,
  unlockRewardOnce,
} from '../rewards/rewards.service.ts';
import * as repository from './subscribers.repository.ts';
import { type LinkBase, type Subscriber, type SubscriberRow, serialize } from './subscribers.wire.ts';

/**
 * Moves a referrer's count by `delta` in the caller's transaction, keeps the program's
 * "referring" figure in step, and unlocks the milestones the new count reaches.
 */
export async function moveReferrerCount(
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
export async function unlockReached(
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

export function rewardEmail(
  programName: string,
  subscriber: SubscriberRow,
  reward: RewardRow,
  portalLink: string,
) {
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
export function welcomeEmail(programName: string, subscriber: Subscriber) {
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
