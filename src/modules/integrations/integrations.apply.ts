import type { ProgramContext } from '../../context.ts';
import {
  type AttributionStep,
  attributionSteps,
  type BillingAction,
  type BillingProvider,
  type CustomerAction,
  type RefundAction,
  type SaleAction,
} from '../../core/billing.ts';
import { minorToMicros } from '../../core/billing-money.ts';
import { boundedRefundDelta, cumulativeRefundDelta } from '../../core/billing-refunds.ts';
import { isCurrencyCode } from '../../core/currencies.ts';
import { microsFrom } from '../../core/money.ts';
import * as repository from './integrations.repository.ts';
import {
  type Credit,
  createEventCustomer,
  type EventBuyer,
  type EventSale,
  findLinkedCustomer,
  promotionCodeExists,
  recordEventSale,
  refundEventSale,
  refusedCredit,
} from './integrations.sales.ts';
import type { BillingEventStatus } from './integrations.tables.ts';

/**
 * What one event did. Errors the services refuse with (a 422, a 404) are not caught here: the
 * runner records them as `failed`; anything else is a passing fault the processor retries.
 */
export interface EventOutcome {
  status: Exclude<BillingEventStatus, 'processing'>;
  reason: string | null;
  transactionKey?: string | undefined;
  customerKey?: string | undefined;
  processorCustomer?: string | undefined;
  awaits?: string | undefined;
  onceId?: string | undefined;
  /** Events to run again now: refunds waiting for this sale, sales waiting for this customer. */
  wakes?: { saleRefs?: string[]; customer?: string };
}

export interface EventScope {
  ctx: ProgramContext;
  provider: BillingProvider;
  type: string;
  /** The row of this event (so a once-only refund does not count itself). */
  rowId: number;
}

export function applyAction(scope: EventScope, action: BillingAction): Promise<EventOutcome> {
  switch (action.kind) {
    case 'sale':
      return applySale(scope, action);
    case 'customer':
      return applyCustomer(scope, action);
    case 'refund':
      return applyRefund(scope, action);
    case 'ignore':
      return Promise.resolve({ status: 'ignored', reason: action.reason });
    case 'invalid':
      return Promise.resolve({ status: 'failed', reason: action.reason });
  }
}

const eventBuyer = (action: SaleAction | CustomerAction): EventBuyer => ({
  customerId: action.buyer.customerId,
  email: action.buyer.email,
  name: action.buyer.name,
});

/** The sale an event asks for, or the outcome of one that cannot be a sale as sent. */
export function eventSaleOf(
  scope: Pick<EventScope, 'type'>,
  action: SaleAction,
): { sale: EventSale; buyer: EventBuyer; processorCustomer: string | undefined } | EventOutcome {
  const processorCustomer = action.buyer.customerId ?? undefined;
  if (action.amountMinor < 0n) {
    return { status: 'failed', reason: 'The amount paid without tax is negative.', processorCustomer };
  }
  if (!isCurrencyCode(action.currency)) {
    return {
      status: 'failed',
      reason: `The currency ${action.currency} is not an ISO 4217 code Vouch knows.`,
      processorCustomer,
    };
  }
  const sale = {
    key: action.key,
    action: scope.type,
    amountMicros: minorToMicros(action.amountMinor, action.currency),
    currency: action.currency,
    productId: action.productId,
    productType: action.productType,
  };
  return { sale, buyer: eventBuyer(action), processorCustomer };
}

/** What a recorded sale answers; its ids wake the refunds that arrived before it. */
export function saleRecorded(
  step: AttributionStep,
  sale: EventSale,
  customerKey: string | undefined,
  processorCustomer: string | undefined,
  refs: readonly string[],
): EventOutcome {
  return {
    status: 'processed',
    reason: `Sale recorded, credited by ${step.by.replace('_', ' ')} ${step.value}.`,
    transactionKey: sale.key,
    customerKey,
    processorCustomer,
    wakes: { saleRefs: [sale.key, ...refs] },
  };
}

export const saleUnattributed = (processorCustomer: string | undefined): EventOutcome => ({
  status: 'unattributed',
  reason: 'No referral key, linked customer or Vouch promotion code credits this sale; nothing was created.',
  processorCustomer,
});

/** Tries each way of crediting the sale in the attribution order; the first that holds records it. */
async function applySale(scope: EventScope, action: SaleAction): Promise<EventOutcome> {
  const { ctx, provider } = scope;
  const planned = eventSaleOf(scope, action);
  if ('status' in planned) return planned;
  const { sale, buyer, processorCustomer } = planned;
  for (const step of attributionSteps(action.buyer)) {
    let credit: Credit | undefined;
    if (step.by === 'referral') credit = { by: 'referral', key: step.value };
    else if (step.by === 'customer')
      credit = (await findLinkedCustomer(ctx, step.value)) ? { by: 'customer' } : undefined;
    else
      credit = (await promotionCodeExists(ctx, step.value))
        ? { by: 'promotion_code', code: step.value }
        : undefined;
    if (!credit) continue;
    let customerKey: string | undefined;
    try {
      customerKey = await recordEventSale(ctx, sale, buyer, credit);
    } catch (error) {
      if (refusedCredit(error)) continue;
      throw error;
    }
    await repository.recordSale(ctx.database.db, ctx.program.id, provider, {
      key: sale.key,
      amountMicros: sale.amountMicros,
      refs: action.refs,
    });
    return saleRecorded(step, sale, customerKey, processorCustomer, action.refs);
  }
  return saleUnattributed(processorCustomer);
}

async function applyCustomer(scope: EventScope, action: CustomerAction): Promise<EventOutcome> {
  const { ctx } = scope;
  const customerId = action.buyer.customerId;
  if (!customerId) return { status: 'ignored', reason: 'The event names no processor customer.' };
  const buyer = { ...eventBuyer(action), customerId };
  if (await findLinkedCustomer(ctx, customerId)) {
    return {
      status: 'processed',
      reason: 'The customer exists already.',
      customerKey: customerId,
      processorCustomer: customerId,
      wakes: { customer: customerId },
    };
  }
  for (const referral of action.buyer.referrals) {
    let created: Awaited<ReturnType<typeof createEventCustomer>>;
    try {
      created = await createEventCustomer(ctx, buyer, referral);
    } catch (error) {
      if (refusedCredit(error)) continue;
      throw error;
    }
    if (created === 'no-email') {
      return {
        status: 'failed',
        reason: 'A refer-a-friend customer needs an e-mail, and the event has none.',
      };
    }
    return {
      status: 'processed',
      reason:
        created === 'created'
          ? `Customer created, credited by referral ${referral}.`
          : 'The customer exists already.',
      customerKey: customerId,
      processorCustomer: customerId,
      wakes: { customer: customerId },
    };
  }
  return {
    status: 'unattributed',
    reason: 'No referral key credits this customer; nothing was created.',
    processorCustomer: customerId,
  };
}

/** Attempts of a refund whose sale another refund changed meanwhile. */
const REFUND_ATTEMPTS = 5;

async function applyRefund(scope: EventScope, action: RefundAction): Promise<EventOutcome> {
  const { ctx, provider } = scope;
  const db = ctx.database.db;
  const onceId = action.onceId;
  if (onceId && (await repository.refundedOnce(db, ctx.program.id, provider, onceId, scope.rowId))) {
    return { status: 'ignored', reason: `${onceId} was refunded by an earlier event.`, onceId };
  }
  for (let attempt = 0; attempt < REFUND_ATTEMPTS; attempt++) {
    const sale = await repository.findSaleByRefs(db, ctx.program.id, provider, action.saleRefs);
    if (!sale) {
      return {
        status: 'pending',
        reason: 'The sale this refund is for has not arrived yet; it is refunded when it does.',
        awaits: action.saleRefs[0],
        onceId,
      };
    }
    const saleMicros = microsFrom(sale.amount);
    const before = microsFrom(sale.refunded);
    const measure = action.measure;
    const decided =
      measure.kind === 'cumulative'
        ? cumulativeRefundDelta({
            saleMicros,
            refundedBeforeMicros: before,
            chargedMinor: measure.chargedMinor,
            refundedMinor: measure.refundedMinor,
          })
        : boundedRefundDelta(
            saleMicros,
            before,
            measure.kind === 'rest' ? saleMicros : minorToMicros(measure.amountMinor, action.currency),
          );
    const key = sale.transaction_key;
    if (decided.deltaMicros === 0n) {
      return {
        status: 'ignored',
        reason: 'Nothing is left to refund: earlier events refunded it.',
        transactionKey: key,
        onceId,
      };
    }
    // Claimed first, so two refunds of one sale arriving together each take only their part.
    if (!(await repository.moveRefunded(db, ctx.program.id, provider, key, before, decided.refundedAfter)))
      continue;
    try {
      await refundEventSale(ctx, key, decided.deltaMicros);
    } catch (error) {
      await repository
        .moveRefunded(db, ctx.program.id, provider, key, decided.refundedAfter, before)
        .catch(() => {});
      throw error;
    }
    return { status: 'processed', reason: 'Refund applied.', transactionKey: key, onceId };
  }
  throw new Error('the sale kept changing under the refund');
}
