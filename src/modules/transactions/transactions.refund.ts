import type { ProgramContext } from '../../context.ts';
import { fieldError } from '../../core/errors.ts';
import { amountOrThrow, microsFrom, microsToText } from '../../core/money.ts';
import { decideRefund, type RefundedSale } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { serializeCommissions } from '../commissions/commissions.service.ts';
import { applySaleFigures } from './transactions.figures.ts';
import * as repository from './transactions.repository.ts';
import type { RefundTransactionBody } from './transactions.schemas.ts';
import type { TransactionProgramType } from './transactions.shared.ts';
import { getRowOrThrow, onlyOne, storedSalesOf } from './transactions.stored.ts';

export const refundRefusals = {
  refunded: () => fieldError('amount', 'refused', 'The transaction has already been refunded in full.'),
  'not-positive': () => fieldError('amount', 'gt', 0),
  'too-much': (left: bigint) => fieldError('amount', 'overRefundable', microsToText(left)),
} as const;

/**
 * `POST /v1/transactions/{key}/refund`: the whole sale when `amount` is omitted, else that part;
 * partial refunds add up, never beyond the sale. Decided by `decideRefund` (core/sales.ts) and
 * applied in one transaction: reduced or voided rewards, clawback lines, figures, events.
 */
export async function refundTransaction(ctx: ProgramContext, key: string, body: RefundTransactionBody) {
  const programId = ctx.program.id;
  const stored = storedSalesOf(ctx);
  const type = ctx.program.type as TransactionProgramType;
  const requested = body.amount === undefined ? undefined : amountOrThrow(body.amount, 'amount');
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, ctx, key);
    await repository.lockTransaction(trx, programId, row.id);
    const fresh = (await repository.findTransactionByKey(trx, programId, key)) ?? row;
    const amountMicros = microsFrom(fresh.amount);
    const refundedBefore = microsFrom(fresh.refunded_amount ?? 0);
    const rewards = await repository.listRewardsOf(trx, programId, [fresh.id]);
    const sale: RefundedSale = {
      type,
      customerId: fresh.customer_id,
      partnerId: fresh.partner_id,
      referringCustomerId: fresh.referring_customer_id,
      amountMicros,
      currency: fresh.amount_units,
      refundedBefore,
      archived: fresh.archived_at !== null,
      rewards: rewards
        .filter((reward) => reward.deleted_at === null)
        .map((reward) => ({
          id: Number(reward.id),
          role: reward.role,
          status: reward.status,
          partnerId: reward.partner_id === null ? null : Number(reward.partner_id),
          customerId: reward.customer_id === null ? null : Number(reward.customer_id),
          amountMicros: microsFrom(reward.amount),
          originalMicros: microsFrom(reward.original_amount ?? reward.amount),
          units: reward.amount_units,
          isCurrency: Boolean(reward.is_currency),
          inPayout: reward.payout_id !== null && reward.status === 'ok',
        })),
    };
    const decision = decideRefund(sale, requested ?? amountMicros - refundedBefore);
    if (typeof decision === 'string') throw refundRefusals[decision](amountMicros - refundedBefore);
    const now = nowTimestamp(ctx.clock);
    for (const update of decision.updates) {
      await repository.updateReward(trx, programId, update.id, {
        amount: update.amountMicros,
        original_amount: update.originalMicros,
        status: update.status,
        updated_at: now,
        ...(update.status === 'voided' ? { reason: 'Refunded' } : {}),
      });
    }
    const clawbacks = await repository.insertRewards(
      trx,
      decision.clawbacks.map(({ of, amountMicros: clawback }) => ({
        program_id: programId,
        transaction_id: fresh.id,
        partner_id: of.partnerId,
        customer_id: of.customerId,
        role: 'clawback',
        status: 'ok',
        amount: clawback,
        amount_units: of.units,
        is_currency: of.isCurrency,
        credit: false,
        commission_type: 'clawback',
        commission_value: String(of.id),
        product_id: fresh.product_id,
        product_type: fresh.product_type,
        available_at: null,
        created_at: now,
        deleted_at: null,
        fraud_flag: null,
        held_available_at: null,
      })),
    );
    await repository.updateTransaction(trx, programId, fresh.id, { refunded_amount: decision.refundedAfter });
    await applySaleFigures(trx, programId, fresh.created_at, decision.figures);
    const after = { ...fresh, refunded_amount: decision.refundedAfter };
    const data = onlyOne(await stored.serialize(trx, ctx, [after]));
    await recordEvent(trx, programId, 'transaction.refunded', data, now);
    if (type === 'affiliate') {
      const voided = decision.updates.filter((u) => u.status === 'voided').map((u) => u.id);
      const changed = await repository.listRewardsOf(trx, programId, [fresh.id]);
      const voidedRows = changed.filter((r) => voided.includes(Number(r.id)));
      for (const commission of await serializeCommissions(trx, ctx, voidedRows))
        await recordEvent(trx, programId, 'commission.voided', commission, now);
      for (const commission of await serializeCommissions(trx, ctx, clawbacks))
        await recordEvent(trx, programId, 'commission.created', commission, now);
    }
    return data;
  });
}
