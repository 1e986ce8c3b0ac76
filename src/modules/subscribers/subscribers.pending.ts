import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { closeWindow, heldWindow, openingWindow, type ReferralWindow } from '../../core/milestones.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { readProgram } from '../program/program.service.ts';
import * as repository from './subscribers.repository.ts';
import { moveReferrerCount } from './subscribers.unlocks.ts';
import type { LinkBase, SubscriberRow } from './subscribers.wire.ts';

/**
 * Newsletter `referral_pending_days` (issue 27): a referred subscriber counts toward its referrer's
 * milestones once its window ends, and only if it is still subscribed (core/milestones.ts).
 */

/** The program's `referral_pending_days` (0: referrals count at once). */
export async function pendingDaysOf(db: Kysely<DB>, programId: number): Promise<number> {
  const program = await readProgram(db, programId);
  const days = programSettingsOf('newsletter', program?.settings ?? '{}').referral_pending_days;
  return typeof days === 'number' ? days : 0;
}

export const windowOf = (row: SubscriberRow): ReferralWindow => ({
  pendingUntil: row.referral_pending_until,
  lapsedAt: row.referral_lapsed_at,
});

/**
 * Closes every pending window of the program that has ended: each subscriber still subscribed
 * counts for its referrer from now on (milestones unlocked as any count move unlocks them). Run
 * before the API answers subscribers, so what it shows has the windows closed.
 */
export async function closeEndedWindows(ctx: ProgramContext, base: LinkBase): Promise<void> {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  if ((await repository.findEndedWindows(ctx.database.db, programId, now, 1)).length === 0) return;
  await ctx.database.inWriteTransaction(async (trx) => {
    for (const row of await repository.findEndedWindows(trx, programId, now)) {
      if (!(await repository.endWindow(trx, programId, Number(row.id))) || row.referrer_id === null) continue;
      const delta = closeWindow({ status: row.status, approved: Boolean(row.approved) });
      await moveReferrerCount(trx, ctx, base, Number(row.referrer_id), delta, now);
    }
  });
}

/**
 * The end of a fraud flag's hold on a referred subscriber (`heldWindow`), in the review's
 * transaction: released, its window ends when its pending days from signup do (at once when they
 * have passed) and it counts then if still subscribed; confirmed, it never counts. A subscriber
 * that unsubscribed while held had lapsed already.
 */
export async function endReferralHold(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  subscriberId: number,
  release: boolean,
): Promise<void> {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  const row = await repository.findSubscriberById(trx, programId, subscriberId);
  if (!row || row.referral_pending_until !== heldWindow.pendingUntil) return;
  if (!release) {
    await repository.updateSubscriber(trx, programId, subscriberId, {
      referral_pending_until: null,
      referral_lapsed_at: now,
    });
    return;
  }
  const days = await pendingDaysOf(trx, programId);
  const ends = openingWindow(days, Date.parse(row.created_at) * 1000).pendingUntil ?? now;
  await repository.updateSubscriber(trx, programId, subscriberId, {
    referral_pending_until: ends > now ? ends : now,
  });
}
