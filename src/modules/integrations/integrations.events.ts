import type { Deps, ProgramContext } from '../../context.ts';
import { type BillingProvider, billingReaders } from '../../core/billing.ts';
import { AppError } from '../../core/errors.ts';
import { renderFieldErrors, summarizeFieldErrors } from '../../core/messages.ts';
import { present } from '../../core/present.ts';
import { formatTimestamp, nowTimestamp } from '../../core/time.ts';
import { applyAction, type EventOutcome } from './integrations.apply.ts';
import type { EventRow } from './integrations.repository.ts';
import * as repository from './integrations.repository.ts';
import { type BillingEventStatus, keepsPayload } from './integrations.tables.ts';

/**
 * Runs a claimed event (status `processing`) and records its outcome. Refusals of the services
 * (422, 404: the event can never be applied as it is) are recorded as `failed` with their message;
 * anything else is a passing fault: the claim is handed back (`onFault`) and the error rethrown.
 */

/** A claim older than this is taken to be abandoned (the process running it stopped). */
export const STALE_CLAIM_MS = 60_000;

const refusalCodes = new Set(['validation_failed', 'not_found', 'bad_request', 'forbidden']);

export function isRefusal(error: unknown): error is AppError {
  return error instanceof AppError && refusalCodes.has(error.code);
}

export function staleBefore(ctx: ProgramContext): string {
  return formatTimestamp(ctx.clock.nowMicros() - STALE_CLAIM_MS * 1000);
}

export async function runClaimedEvent(
  ctx: ProgramContext,
  provider: BillingProvider,
  row: EventRow,
  event: unknown,
  onFault: () => Promise<void>,
): Promise<EventOutcome> {
  const action = billingReaders[provider].action(event);
  let outcome: EventOutcome;
  try {
    outcome = await applyAction({ ctx, provider, type: row.type, rowId: row.id }, action);
  } catch (error) {
    if (!isRefusal(error)) {
      await onFault().catch(() => {});
      throw error;
    }
    // A 422 is recorded as its client would read it: the summary of its field messages.
    const reason =
      error.code === 'validation_failed'
        ? summarizeFieldErrors(renderFieldErrors(error.problems), error.total)
        : error.message;
    outcome = { status: 'failed', reason };
  }
  await repository.finishEvent(ctx.database.db, ctx.program.id, row.id, {
    status: outcome.status,
    reason: outcome.reason,
    transaction_key: outcome.transactionKey ?? null,
    customer_key: outcome.customerKey ?? null,
    processor_customer: outcome.processorCustomer ?? row.processor_customer,
    ...(keepsPayload(outcome.status) ? {} : { payload: null }),
    awaits: outcome.awaits ?? null,
    once_id: outcome.onceId ?? null,
    updated_at: nowTimestamp(ctx.clock),
  });
  if (outcome.wakes) await runWoken(ctx, provider, outcome.wakes, ctx.log);
  return outcome;
}

/** Takes a stored event in one of `from` (or an abandoned claim) and runs it again from its payload. */
export async function rerunStoredEvent(
  ctx: ProgramContext,
  provider: BillingProvider,
  id: number,
  from: readonly BillingEventStatus[],
): Promise<EventOutcome | undefined> {
  const db = ctx.database.db;
  const taken = await repository.takeEvent(
    db,
    ctx.program.id,
    id,
    from,
    staleBefore(ctx),
    nowTimestamp(ctx.clock),
  );
  if (!taken) return undefined;
  const previous = from.includes(taken.status) ? taken.status : 'failed';
  // Claims, and the statuses a retry takes, keep their payload (`keepsPayload`).
  const payload = present(taken.payload, 'the payload of an event that may run again');
  return runClaimedEvent(ctx, provider, taken, JSON.parse(payload), () =>
    repository.finishEvent(db, ctx.program.id, id, { status: previous, updated_at: nowTimestamp(ctx.clock) }),
  );
}

/**
 * Events an outcome makes runnable: refunds that waited for this sale, and sales of a processor
 * customer that were unattributed until this customer was linked. A fault leaves them as they
 * were (a later event or a retry runs them).
 */
async function runWoken(
  ctx: ProgramContext,
  provider: BillingProvider,
  wakes: NonNullable<EventOutcome['wakes']>,
  log: Deps['log'],
) {
  const db = ctx.database.db;
  const pending = wakes.saleRefs?.length
    ? await repository.listPendingRefunds(db, ctx.program.id, provider, wakes.saleRefs)
    : [];
  const unattributed = wakes.customer
    ? await repository.listUnattributedOf(db, ctx.program.id, provider, wakes.customer)
    : [];
  await runPending(
    ctx,
    provider,
    pending.map(({ id }) => id),
    log,
  );
  for (const { id } of unattributed) await rerunQuietly(ctx, provider, id, 'unattributed', log);
}

/** Runs refunds that waited for a sale now stored, oldest first. */
export async function runPending(
  ctx: ProgramContext,
  provider: BillingProvider,
  ids: readonly number[],
  log: Deps['log'],
) {
  for (const id of ids) await rerunQuietly(ctx, provider, id, 'pending', log);
}

async function rerunQuietly(
  ctx: ProgramContext,
  provider: BillingProvider,
  id: number,
  from: BillingEventStatus,
  log: Deps['log'],
) {
  try {
    await rerunStoredEvent(ctx, provider, id, [from]);
  } catch (error) {
    log.warn({ err: error, billingEvent: id }, 'a billing event waiting for another could not run yet');
  }
}
