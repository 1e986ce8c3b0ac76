import type { Kysely } from 'kysely';
import { type Deps, keylessContext, type ProgramContext } from '../../context.ts';
import { closeWindow, heldWindow, openingWindow, type ReferralWindow } from '../../core/milestones.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { programsOfType, readProgram } from '../program/program.service.ts';
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
export async function closeEndedWindows(ctx: ProgramContext, base: LinkBase): Promise<number> {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  if ((await repository.findEndedWindows(ctx.database.db, programId, now, 1)).length === 0) return 0;
  return ctx.database.inWriteTransaction(async (trx) => {
    let ended = 0;
    for (const row of await repository.findEndedWindows(trx, programId, now, windowBatch)) {
      if (!(await repository.endWindow(trx, programId, Number(row.id)))) continue;
      ended++;
      if (row.referrer_id === null) continue;
      const delta = closeWindow({ status: row.status, approved: Boolean(row.approved) });
      await moveReferrerCount(trx, ctx, base, Number(row.referrer_id), delta, now);
    }
    return ended;
  });
}

/** Windows one transaction closes (the write lock is held briefly). */
const windowBatch = 500;

/**
 * The worker's step: ended windows of every newsletter program are closed, `windowBatch` a
 * transaction and at most `max` a pass, so a referrer's count moves (and its milestone e-mails
 * leave) without waiting for an API read of the subscribers. Links in what it sends point at
 * `PUBLIC_URL` (else the API's own address), as the worker's other e-mails do. Answers how many
 * windows were closed.
 */
export async function closeEndedWindowsOfAllPrograms(deps: Deps, max = 10_000): Promise<number> {
  const base = { baseUrl: deps.config.publicUrl ?? `http://${deps.config.host}:${deps.config.port}` };
  let closed = 0;
  for await (const programs of programsOfType(deps.database.db, 'newsletter')) {
    for (const program of programs) {
      const ctx = keylessContext(deps, {
        id: Number(program.id),
        public_id: program.public_id,
        type: 'newsletter',
      });
      for (;;) {
        const ended = await closeEndedWindows(ctx, base);
        closed += ended;
        if (closed >= max) return closed;
        if (ended < windowBatch) break;
      }
    }
  }
  return closed;
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
