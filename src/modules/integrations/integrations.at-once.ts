import type { Insertable } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import {
  type AttributionStep,
  attributionSteps,
  type BillingAction,
  type BillingProvider,
} from '../../core/billing.ts';
import { nowTimestamp } from '../../core/time.ts';
import { type EventOutcome, eventSaleOf, saleRecorded, saleUnattributed } from './integrations.apply.ts';
import { isRefusal, runPending } from './integrations.events.ts';
import * as receipts from './integrations.receive.repository.ts';
import { buyerKeyOf, type Credit, promotionCodeExists, recordEventSale } from './integrations.sales.ts';
import { type BillingEventsTable, keepsPayload } from './integrations.tables.ts';

/**
 * The usual delivery at once (ADR 0103): a new event that is a sale, or that asks nothing, is
 * applied and logged once with its outcome by the event writer (integrations.receive.repository.ts:
 * on SQLite in one write transaction, on PostgreSQL in steps that hold no transaction, the log
 * rows in the sale's own statement), and nothing is read back. The sale is credited by the first
 * way the attribution order names; the sale reads its buyer itself, so a sale credited by its
 * buyer is not looked up first.
 *
 * Answers undefined, having logged nothing, whenever the claimed path (integrations.events.ts)
 * must answer: the event is stored already (a redelivery, or one claimed by a run that stopped),
 * it is a refund or a customer, or the services refused the first credit (the claimed path then
 * tries the next way, or logs the refusal as `failed`). A passing fault is thrown with nothing
 * logged: the processor's retry runs the event (a sale it recorded meanwhile is then replayed).
 */
export async function receiveAtOnce(
  ctx: ProgramContext,
  provider: BillingProvider,
  received: Insertable<BillingEventsTable>,
  action: BillingAction,
) {
  const planned = await plan(ctx, received.type, action);
  if (!planned) return undefined;
  const written = await receipts.eventWriterOf(ctx.database)<EventOutcome>({
    programId: ctx.program.id,
    provider,
    eventId: received.event_id,
    apply: async (trx, logWith) => {
      const { sale } = planned;
      if (!sale) return planned.outcome;
      // The outcome is known before the write: on PostgreSQL the log row goes with the sale.
      const outcome = saleRecorded(
        sale.step,
        sale.sale,
        buyerKeyOf(sale.buyer),
        sale.processorCustomer,
        sale.refs,
      );
      await recordEventSale(ctx, sale.sale, sale.buyer, sale.credit, trx, logWith?.(outcome));
      return outcome;
    },
    settled: (outcome) => ({
      row: {
        ...received,
        payload: keepsPayload(outcome.status) ? received.payload : null,
        status: outcome.status,
        reason: outcome.reason,
        transaction_key: outcome.transactionKey ?? null,
        customer_key: outcome.customerKey ?? null,
        processor_customer: outcome.processorCustomer ?? null,
        updated_at: nowTimestamp(ctx.clock),
      },
      sale: planned.sale && {
        key: planned.sale.sale.key,
        amountMicros: planned.sale.sale.amountMicros,
        refs: planned.sale.refs,
      },
    }),
    refused: isRefusal,
  });
  if (written === 'stored' || written === 'refused') return undefined;
  const { id, outcome, waiting } = written;
  // The refunds that arrived before this sale, found when its ids were stored.
  await runPending(ctx, provider, waiting, ctx.log);
  return {
    id,
    event_id: received.event_id,
    type: received.type,
    status: outcome.status,
    reason: outcome.reason,
  };
}

type PlannedSale = Exclude<ReturnType<typeof eventSaleOf>, EventOutcome> & {
  credit: Credit;
  step: AttributionStep;
  refs: readonly string[];
};

type Plan = { outcome: EventOutcome; sale?: undefined } | { outcome?: undefined; sale: PlannedSale };

/** What the event will do, decided before the write; undefined for the claimed path's events. */
async function plan(ctx: ProgramContext, type: string, action: BillingAction): Promise<Plan | undefined> {
  switch (action.kind) {
    case 'ignore':
      return { outcome: { status: 'ignored', reason: action.reason } };
    case 'invalid':
      return { outcome: { status: 'failed', reason: action.reason } };
    case 'customer':
    case 'refund':
      return undefined;
    case 'sale':
      break;
  }
  const planned = eventSaleOf({ type }, action);
  if ('status' in planned) return { outcome: planned };
  const [step] = attributionSteps(action.buyer);
  if (!step) return { outcome: saleUnattributed(planned.processorCustomer) };
  let credit: Credit;
  if (step.by === 'referral') credit = { by: 'referral', key: step.value };
  else if (step.by === 'customer') credit = { by: 'customer' };
  // A code is the last way: one that is not the program's leaves the sale unattributed.
  else if (await promotionCodeExists(ctx, step.value)) credit = { by: 'promotion_code', code: step.value };
  else return { outcome: saleUnattributed(planned.processorCustomer) };
  return { sale: { ...planned, credit, step, refs: action.refs } };
}
