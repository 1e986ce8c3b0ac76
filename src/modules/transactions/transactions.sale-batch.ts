import type { Kysely } from 'kysely';
import { batchChecks, batchFigures, firstBatch, type VersionCheck } from '../../core/guarded-batches.ts';
import type { SaleFigures } from '../../core/sales.ts';
import { coalescedWrites } from '../../db/coalescer.ts';
import { executeGatedOrThrow } from '../../db/gated.ts';
import { mergedInserts } from '../../db/merged-inserts.ts';
import type { BoundStatement } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { subscriberStatement } from '../../outbox/outbox.ts';
import { figureWrites, versionGuards } from '../counters/counters.figures.repository.ts';
import * as repository from './transactions.repository.ts';
import type { RewardRow, TransactionRow } from './transactions.shared.ts';

/**
 * PostgreSQL, the coalesced strategy of the sale writer (transactions.sale-writer.ts): sales
 * decided without a lock and without events (their program has no active webhook), written with
 * the program's other such sales of the same turn of the event loop in one statement
 * (db/coalescer.ts): one check of each buyer's sale version (in buyer order, so two batches take
 * their buyers' rows alike), the sales and their rewards as one insert each, the program's figures
 * summed per day and the entities' merged. It applies only while every buyer's version is the one
 * read and the program still has no active webhook; when it fails for any reason, each sale is
 * written alone and answers its own outcome.
 */

/** A sale decided without a lock, ready to be written. */
export interface DecidedSale extends VersionCheck {
  row: TransactionRow;
  rewards: readonly RewardRow[];
  figures: SaleFigures;
  /** Another module's rows written with the sale (transactions.shared.ts, `SaleCompanion`). */
  companions: readonly BoundStatement[];
}

/** Sales in one statement at most: about 400 values of the sales' insert, 600 of the rewards'. */
const MAX_BATCH = 16;

/** A sale checks its buyer. */
const buyerCheck = (sale: DecidedSale): VersionCheck => sale;

function writeSales(db: Kysely<DB>, programId: number, sales: readonly DecidedSale[]): Promise<void> {
  const figures = batchFigures(sales.map((sale) => ({ at: sale.row.created_at, figures: sale.figures })));
  // The sales hold the keys: the rest is written only when every one of them was.
  const [keyed] = repository.salesStatement(
    db,
    sales.map((sale) => sale.row),
  );
  if (!keyed) return Promise.resolve();
  return executeGatedOrThrow(db, {
    guards: versionGuards(db, programId, batchChecks(sales, buyerCheck)),
    keyed: { statement: keyed, rows: sales.length },
    statements: [
      ...repository.rewardsStatement(
        db,
        sales.flatMap((sale) => sale.rewards),
      ),
      ...figureWrites(db, programId, figures),
      // One insert per table for the batch's companions, not one per sale.
      ...mergedInserts(sales.flatMap((sale) => sale.companions)),
    ],
    // Decided without events: applied only while the program still has no active webhook.
    absent: subscriberStatement(db, programId),
  });
}

/** Writes `sale` (with others of its program when they arrive together); rejects as its own write would. */
export const writeDecidedSale = coalescedWrites<DecidedSale>(
  (queue) => firstBatch(queue, MAX_BATCH, buyerCheck),
  writeSales,
);
