import type { Kysely } from 'kysely';
import { batchChecks, batchFigures, firstBatch, type VersionCheck } from '../../core/guarded-batches.ts';
import type { SaleFigures } from '../../core/sales.ts';
import type { DB } from '../../db/tables.ts';
import { executeGuarded } from '../../db/together.ts';
import { WriteCoalescer } from '../../db/write-coalescer.ts';
import { subscriberStatement } from '../../outbox/outbox.ts';
import { saleVersionGuardStatement } from '../customers/customers.service.ts';
import { saleFigureStatements } from './transactions.figures.ts';
import * as repository from './transactions.repository.ts';
import type { RewardRow, TransactionRow } from './transactions.shared.ts';

/**
 * PostgreSQL: sales decided without a lock and without events (their program has no active
 * webhook), written with the program's other such sales of the same turn of the event loop in one
 * statement (db/write-coalescer.ts): one check of each buyer's sale version (in buyer order, so two
 * batches take their buyers' rows alike), the sales and their rewards as one insert each, the
 * program's figures summed per day and the entities' merged. It applies only while every buyer's
 * version is the one read and the program still has no active webhook; when it fails for any
 * reason, each sale is written alone and answers its own outcome.
 */

/** A sale decided without a lock, ready to be written. */
export interface DecidedSale extends VersionCheck {
  row: TransactionRow;
  rewards: readonly RewardRow[];
  figures: SaleFigures;
}

/** Sales in one statement at most: about 400 values of the sales' insert, 600 of the rewards'. */
const MAX_BATCH = 16;

const guardOf = (db: Kysely<DB>, programId: number, check: VersionCheck) =>
  saleVersionGuardStatement(db, programId, check.customerId, check.seen, check.moves);

/** A sale checks its buyer. */
const buyerCheck = (sale: DecidedSale): VersionCheck => sale;

function writeAlone(db: Kysely<DB>, programId: number, sale: DecidedSale): Promise<void> {
  return executeGuarded(
    db,
    [guardOf(db, programId, sale)],
    [
      ...repository.salesStatement(db, [sale.row]),
      ...repository.rewardsStatement(db, sale.rewards),
      ...saleFigureStatements(db, programId, sale.row.created_at, sale.figures),
    ],
    subscriberStatement(db, programId),
  );
}

function writeTogether(db: Kysely<DB>, programId: number, sales: readonly DecidedSale[]): Promise<void> {
  const { program, entities } = batchFigures(
    sales.map((sale) => ({ at: sale.row.created_at, figures: sale.figures })),
  );
  return executeGuarded(
    db,
    batchChecks(sales, buyerCheck).map((check) => guardOf(db, programId, check)),
    [
      ...repository.salesStatement(
        db,
        sales.map((sale) => sale.row),
      ),
      ...repository.rewardsStatement(
        db,
        sales.flatMap((sale) => sale.rewards),
      ),
      // The program's figures first, as every writer takes them (transactions.figures.ts).
      ...program.flatMap((day, i) =>
        saleFigureStatements(db, programId, day.at, {
          program: day.figures,
          entities: i === program.length - 1 ? entities : [],
        }),
      ),
    ],
    subscriberStatement(db, programId),
  );
}

/** One coalescer per database (keyed by its Kysely instance, as prepared statements are). */
const coalescers = new WeakMap<Kysely<DB>, WriteCoalescer<DecidedSale>>();

/** Writes `sale` (with others of its program when they arrive together); rejects as its own write would. */
export function writeDecidedSale(db: Kysely<DB>, programId: number, sale: DecidedSale): Promise<void> {
  let coalescer = coalescers.get(db);
  if (!coalescer) {
    coalescer = new WriteCoalescer<DecidedSale>({
      take: (queue) => firstBatch(queue, MAX_BATCH, buyerCheck),
      together: (key, batch) => writeTogether(db, key, batch),
      alone: (key, item) => writeAlone(db, key, item),
    });
    coalescers.set(db, coalescer);
  }
  return coalescer.write(programId, sale);
}
