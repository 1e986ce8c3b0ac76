import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import type { SaleDecision } from '../../core/sales.ts';
import { isRetryable, translateDriverError, uniqueViolationColumn } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { type DomainEvent, eventsStatement } from '../../outbox/outbox.ts';
import { figureWrites, versionGuards } from '../counters/counters.figures.repository.ts';
import * as repository from './transactions.repository.ts';
import { writeDecidedSale } from './transactions.sale-batch.ts';
import type { RewardRow, SaleSteps, TransactionRow } from './transactions.shared.ts';

/**
 * PostgreSQL, the guarded strategy of the sale writer: one sale without a promotion code, read
 * without a lock, decided, and written in one statement that applies only if the buyer's sale
 * version is still the one read (migration 0023), with the program's other such sales of the same
 * turn when it has no active webhook (transactions.sale-batch.ts): two round trips instead of a
 * transaction's six, and no replay look-up before them (the write finds a taken key itself). A
 * concurrent write to the same buyer makes it decide again; after AT_ONCE_ATTEMPTS, or when the
 * buyer does not exist yet, the sale takes the transactional strategy (`inTransaction`).
 * Answers undefined when the key is taken (insertOrReplay then replays or refuses).
 */

/** Attempts of a sale written without a transaction before it takes its buyer's lock instead. */
const AT_ONCE_ATTEMPTS = 3;

type Written<Data> = { data: Data } | 'taken' | 'locked';

export async function writeSaleAtOnce<Prepared, Data>(
  ctx: ProgramContext,
  steps: SaleSteps<Prepared, Data>,
  inTransaction: (steps: SaleSteps<Prepared, Data>) => Promise<{ data: Data } | undefined>,
): Promise<{ data: Data } | undefined> {
  let written: Written<Data>;
  try {
    written = await attemptAtOnce(ctx, steps);
  } catch (error) {
    if (await keyStored(ctx, steps)) return undefined;
    throw error;
  }
  if (written === 'taken' || (written === 'locked' && (await keyStored(ctx, steps)))) return undefined;
  if (written !== 'locked') return written;
  return inTransaction(steps);
}

/**
 * A stored key answers by replay before anything this request would decide or refuse now (its
 * buyer deleted since, the program's settings changed): asked only off the usual path. A failed
 * look-up counts as no key: the caller then reports the write's own error.
 */
async function keyStored<Prepared, Data>(ctx: ProgramContext, steps: SaleSteps<Prepared, Data>) {
  try {
    return (await repository.findTransactionByKey(ctx.database.db, ctx.program.id, steps.key)) !== undefined;
  } catch {
    return false;
  }
}

/** The tries: written, the key taken, or 'locked' when the transactional strategy must decide. */
async function attemptAtOnce<Prepared, Data>(
  ctx: ProgramContext,
  steps: SaleSteps<Prepared, Data>,
): Promise<Written<Data>> {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  for (let attempt = 0; attempt < AT_ONCE_ATTEMPTS; attempt++) {
    const read = await steps.readUnlocked?.(db);
    if (!read) return 'locked';
    const { decision, row: values } = steps.decide(read.prepared);
    const row: TransactionRow = { id: read.saleId, ...values, refunded_amount: null };
    // Ids were taken ahead for the usual number of rewards; more rewards take theirs now.
    const more = decision.rewards.length - read.rewardIds.length;
    const rewardIds =
      more > 0 ? [...read.rewardIds, ...(await repository.takeRewardIds(db, more))] : read.rewardIds;
    const rewards = rewardValuesOf(row, decision).map((values, i) => newRewardRow(values, rewardIds[i] ?? 0));
    const check = {
      customerId: decision.customerId,
      seen: read.version,
      moves: decision.countsForLaterSales,
    };
    const data = steps.answer(read.prepared, row, rewards);
    try {
      if (read.subscribed) {
        const events = await saleEvents(db, steps, read.prepared, row, rewards, data);
        const [keyed] = repository.salesStatement(db, [row]);
        if (!keyed) throw new Error('a sale without its statement');
        const outcome = await repository.executeGated(db, {
          guards: versionGuards(db, programId, [check]),
          keyed: { statement: keyed, rows: 1 },
          statements: [
            ...repository.rewardsStatement(db, rewards),
            ...saleFigureWrites(db, programId, row.created_at, decision),
            ...eventsStatement(db, programId, events),
            ...steps.companions,
          ],
        });
        if (outcome === 'taken') return 'taken';
        if (outcome === 'changed') continue;
      } else {
        // No events to write: with the program's other such sales of this turn, and only while
        // the program still has no active webhook (transactions.sale-batch.ts).
        await writeDecidedSale(db, programId, {
          ...check,
          row,
          rewards,
          figures: decision.figures,
          companions: steps.companions,
        });
      }
      return { data };
    } catch (error) {
      // Written alone after its batch did not apply (transactions.sale-batch.ts).
      if (error instanceof repository.NotWrittenError) {
        if (error.outcome === 'taken') return 'taken';
        continue;
      }
      // A key taken by an identical sale racing this one inside a batch.
      if (uniqueViolationColumn(error) === 'key') return 'taken';
      // Its partner was deleted meanwhile (a deleted buyer fails the guard): the transactional
      // strategy says so properly.
      if (translateDriverError(error)?.kind === 'foreign_key') return 'locked';
      if (!isRetryable(error)) throw error;
    }
  }
  return 'locked';
}

// The pieces every strategy shares.

/** The figures a sale moves, as writes to go with its others (the program's first). */
export function saleFigureWrites(db: Kysely<DB>, programId: number, at: string, decision: SaleDecision) {
  const { program, entities } = decision.figures;
  return figureWrites(db, programId, { program: [{ at, figures: program }], entities });
}

/** `transaction.created` and the sale's other events. */
export async function saleEvents<Prepared, Data>(
  db: Kysely<DB>,
  steps: SaleSteps<Prepared, Data>,
  prepared: Prepared,
  row: TransactionRow,
  rewards: readonly RewardRow[],
  data: Data,
): Promise<DomainEvent[]> {
  return [
    { event: 'transaction.created', payload: data, createdAt: row.created_at },
    ...(await steps.events(db, prepared, row, rewards)),
  ];
}

/** The decided rewards' columns, for the sale `row`. */
export function rewardValuesOf(row: TransactionRow, decision: SaleDecision): repository.NewReward[] {
  return decision.rewards.map((reward) => ({
    program_id: row.program_id,
    transaction_id: row.id,
    partner_id: reward.partnerId,
    customer_id: reward.customerId,
    role: reward.role,
    status: reward.status,
    amount: reward.amountMicros,
    amount_units: reward.units,
    is_currency: reward.isCurrency,
    credit: false,
    commission_type: reward.commissionType,
    commission_value: reward.commissionValue,
    product_id: row.product_id,
    product_type: row.product_type,
    available_at: reward.availableAt,
    created_at: row.created_at,
    deleted_at: null,
    fraud_flag: reward.fraudFlag ?? null,
    held_available_at: reward.heldAvailableAt ?? null,
  }));
}

/** A reward row as stored by its insert: the columns the sale gave, its id, the rest empty. */
export function newRewardRow(values: repository.NewReward, id: number): RewardRow {
  return {
    ...values,
    id,
    payout_id: null,
    approved_at: null,
    paid_at: null,
    reason: null,
    description: null,
    updated_at: null,
    original_amount: null,
  };
}
