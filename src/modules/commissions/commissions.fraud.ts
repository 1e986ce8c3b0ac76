import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { commissionMoveFigures } from '../../core/commission-status.ts';
import { fieldError } from '../../core/errors.ts';
import { type HoldEnd, holdEndOf } from '../../core/fraud.ts';
import { microsFrom } from '../../core/money.ts';
import { balanceMetric } from '../../core/rewards.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import { passCustomerHold } from '../customers/customers.service.ts';
import type { ConfirmFraudFlagBody } from '../fraud/fraud.schemas.ts';
import { lockFlagOrThrow, markFlagResolved, toFraudFlag } from '../fraud/fraud.service.ts';
import { archivePartner } from '../partners/partners.service.ts';
import { endReferralHold } from '../subscribers/subscribers.service.ts';
import * as repository from './commissions.repository.ts';
import { isCounted } from './commissions.review.ts';
import { lockCommissions } from './commissions.settle.ts';
import { serializeCommissions } from './commissions.wire.ts';

/**
 * Resolves an open flag in one transaction: its status, the hold on its customer and commissions
 * (passed to the customer's next open flag, released, denied or voided, as `holdEndOf` decides),
 * and its event. Resolving a flag again the same way answers it as it is; the other way is a 422
 * on `id`.
 */
async function resolveFlag(ctx: ProgramContext, id: string, to: 'cleared' | 'confirmed', deny: boolean) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await lockFlagOrThrow(trx, ctx, id);
    if (row.status === to) return { row, changed: false };
    if (row.status !== 'open')
      throw fieldError('id', 'refused', `The flag is already ${row.status}: it cannot be ${to}.`);
    const { resolved, next } = await markFlagResolved(trx, ctx, row, to, now);
    if (row.subject_kind === 'customer')
      await passCustomerHold(trx, programId, Number(row.subject_id), row.public_id, next?.public_id ?? null);
    // A referred subscriber stays held while another flag on it is open.
    if (row.subject_kind === 'subscriber' && !next)
      await endReferralHold(trx, ctx, Number(row.subject_id), to === 'cleared' || !deny);
    const end = holdEndOf(ctx.program.type, { deny, anotherOpenFlag: next !== undefined });
    await endCommissionHold(trx, ctx, row.public_id, end, next?.public_id, now);
    return { row: resolved, changed: true };
  });
}

/** `POST /v1/fraud/flags/{id}/clear`: not fraud; the held money follows the normal rules again. */
export async function clearFraudFlag(ctx: ProgramContext, id: string) {
  return toFraudFlag((await resolveFlag(ctx, id, 'cleared', false)).row);
}

/**
 * `POST /v1/fraud/flags/{id}/confirm`: fraud. With `deny` (default true) the held commissions are
 * denied; without, they follow the normal rules again. `archive_owner` archives the partner too.
 */
export async function confirmFraudFlag(ctx: ProgramContext, id: string, body: ConfirmFraudFlagBody) {
  const { row, changed } = await resolveFlag(ctx, id, 'confirmed', body.deny ?? true);
  if (changed && body.archive_owner === true && row.owner_kind === 'partner')
    await archivePartner(ctx, row.owner_ref);
  return toFraudFlag(row);
}

/**
 * The end of a fraud flag's hold (issue 27), in the flag's review transaction: its commissions
 * pass to the customer's next open flag, go back to the normal rules, or are denied.
 */
async function endCommissionHold(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  flag: string,
  end: HoldEnd,
  nextFlag: string | undefined,
  now: string,
): Promise<number> {
  const programId = ctx.program.id;
  if (end === 'pass' && nextFlag !== undefined) {
    await repository.passHold(trx, programId, flag, nextFlag);
    return 0;
  }
  if (ctx.program.type === 'referral') return endRewardHold(trx, programId, flag, end === 'release', now);
  if (end === 'release') {
    await repository.releaseHold(trx, programId, flag, now);
    return 0;
  }
  const held = await repository.findHeldCommissions(trx, programId, flag);
  if (held.length === 0) return 0;
  const ids = held.map((row) => Number(row.id));
  await lockCommissions(trx, programId, ids);
  await repository.setRewardsStatus(trx, programId, ids, {
    status: 'denied',
    reason: 'fraud',
    updated_at: now,
    available_at: null,
    held_available_at: null,
  });
  const sales = new Map(
    (
      await repository.findSaleKeys(
        trx,
        programId,
        held.flatMap((r) => (r.transaction_id === null ? [] : [Number(r.transaction_id)])),
      )
    ).map((s) => [Number(s.id), s]),
  );
  await addCounterDeltas(
    trx,
    programId,
    commissionMoveFigures(
      held.map((row) => ({
        partnerId: Number(row.partner_id),
        units: row.amount_units,
        amountMicros: microsFrom(row.amount),
        from: row.status,
        to: 'denied',
        counted: isCounted(row, sales),
      })),
    ),
  );
  const denied = await repository.findCommissionsByIds(trx, programId, ids);
  for (const commission of await serializeCommissions(trx, ctx, denied))
    await recordEvent(trx, programId, 'commission.denied', commission, now);
  return ids.length;
}

/**
 * The end of a refer-a-friend reward's hold: released, it becomes `ok` and enters its owner's
 * balance (the figure its sale left out); confirmed, it is voided and was never in a balance.
 */
async function endRewardHold(
  trx: Kysely<DB>,
  programId: number,
  flag: string,
  release: boolean,
  now: string,
): Promise<number> {
  const held = await repository.findHeldCommissions(trx, programId, flag);
  if (held.length === 0) return 0;
  const ids = held.map((row) => Number(row.id));
  await lockCommissions(trx, programId, ids);
  const status = release ? 'ok' : 'voided';
  await repository.setRewardsStatus(trx, programId, ids, {
    status,
    fraud_flag: null,
    held_available_at: null,
    updated_at: now,
  });
  if (release)
    await addCounterDeltas(
      trx,
      programId,
      held.flatMap((row) =>
        row.customer_id === null
          ? []
          : [
              {
                kind: 'customer' as const,
                id: Number(row.customer_id),
                metric: balanceMetric(Boolean(row.is_currency), row.amount_units),
                value: microsFrom(row.amount),
              },
            ],
      ),
    );
  return ids.length;
}
