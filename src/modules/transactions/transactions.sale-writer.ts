import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { pick } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import { eventsStatement } from '../../outbox/outbox.ts';
import { versionBump } from '../counters/counters.figures.repository.ts';
import * as repository from './transactions.repository.ts';
import {
  newRewardRow,
  rewardValuesOf,
  saleEvents,
  saleFigureWrites,
  writeSaleAtOnce,
} from './transactions.sale-writer.guarded.ts';
import type { SaleSteps } from './transactions.shared.ts';

/**
 * The sale writer: the data layer's port for "write this sale". The service decides (pure rules
 * of core/sales, through the type's handler) and hands the writer the steps of a sale; the writer
 * chooses once, by database, how the sale reaches the rows:
 * - transactional: read locked, decide, write in one transaction (SQLite, in the write batcher's
 *   group commit; PostgreSQL, a sale with a promotion code or a buyer that does not exist yet);
 * - guarded (PostgreSQL): read unlocked, decide, write in one statement that applies only while
 *   the buyer's version is the one read (transactions.sale-writer.guarded.ts);
 * - coalesced (PostgreSQL, no active webhook): the guarded write of several sales of one turn in
 *   one statement (transactions.sale-batch.ts).
 * Driver error codes, retries and the fall-back between strategies stay in these files.
 */

export interface SaleWriter {
  /** Writes the sale; undefined when its key is taken (insertOrReplay then replays or refuses). */
  write<Prepared, Data>(steps: SaleSteps<Prepared, Data>): Promise<{ data: Data } | undefined>;
  /** Whether `write` finds a taken key itself, so the replay look-up can come after it. */
  readonly findsTakenKey: boolean;
}

/** The writer of a sale inside the caller's transaction (the multiple form, a lead's conversion). */
export function saleWriterIn(trx: Kysely<DB>, ctx: ProgramContext): SaleWriter {
  return { findsTakenKey: false, write: (steps) => writeInTransaction(trx, ctx, steps) };
}

/** The writer of a sale on its own: chosen once, by database. */
export function saleWriterOf(ctx: ProgramContext): SaleWriter {
  const inOwnTransaction = <Prepared, Data>(steps: SaleSteps<Prepared, Data>) =>
    ctx.database.inWriteTransaction((trx) => writeInTransaction(trx, ctx, steps));
  return pick<SaleWriter>(ctx.database, {
    sqlite: { findsTakenKey: false, write: inOwnTransaction },
    postgres: {
      findsTakenKey: true,
      write: (steps) =>
        steps.readUnlocked ? writeSaleAtOnce(ctx, steps, inOwnTransaction) : inOwnTransaction(steps),
    },
  });
}

/** The transactional strategy: the row first (nothing when its key is taken), then the rest. */
async function writeInTransaction<Prepared, Data>(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  steps: SaleSteps<Prepared, Data>,
): Promise<{ data: Data } | undefined> {
  const programId = ctx.program.id;
  const prepared = await steps.prepare(trx);
  const { decision, row: values } = steps.decide(prepared);
  const { row, rewardIds } = await repository.insertSale(trx, values, decision.rewards.length);
  if (!row) return undefined;
  await steps.afterInsert?.(trx, prepared, row, decision);
  const rewardValues = rewardValuesOf(row, decision);
  // PostgreSQL took the rewards' ids with the sale: they are written below with the rest.
  const rewards = rewardIds
    ? rewardValues.map((values, i) => newRewardRow(values, rewardIds[i] ?? 0))
    : await repository.insertRewards(trx, rewardValues);
  const data = steps.answer(prepared, row, rewards);
  const events = await saleEvents(trx, steps, prepared, row, rewards, data);
  // The rest in one statement on PostgreSQL (db/together.ts), the program's figures first: the
  // figure rows are the ones concurrent sales share, so their locks are held from here to the
  // commit only. The buyer, locked since it was read, gets a new sale version (migration 0023).
  await repository.executeTogether(trx, [
    ...saleFigureWrites(trx, programId, row.created_at, decision),
    ...eventsStatement(trx, programId, events),
    ...(rewardIds ? repository.rewardsStatement(trx, rewards) : []),
    ...versionBump(trx, programId, decision.customerId),
    ...steps.companions,
  ]);
  return { data };
}
