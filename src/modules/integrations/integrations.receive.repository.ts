import type { Insertable, Kysely } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';
import type { Database } from '../../db/database.ts';
import { pick } from '../../db/locks.ts';
import { type BoundStatement, definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { queryTogether } from '../../db/together.ts';
import type { BillingEventStatus, BillingEventsTable } from './integrations.tables.ts';

/**
 * How a new event is written (integrations.at-once.ts, ADR 0103): looked for, applied, and logged
 * once with its outcome and the sale's ids. The service gives the steps; the writer chooses, by
 * database, how they reach the rows:
 * - SQLite: all in one write transaction, which the write batcher's group commit shares with the
 *   writes that arrive together (one writer, where a commit costs more than the statements);
 * - PostgreSQL: each step on its own, no transaction held between them: the look-up, the sale by
 *   the transactions service's own strategy (read unlocked, written guarded, coalesced with the
 *   program's other sales), then the log row and the sale's ids as one statement. A transaction
 *   held across the sale's round trips keeps a pooled connection through as many turns of a
 *   loaded event loop: the pool, not the database, then bounds the rate.
 * The row is written once, settled: no `processing` claim to update (on PostgreSQL a claim costs
 * a commit, and its update a second version of a row that carries the payload). Two deliveries of
 * one event at once both apply it, which the sale's key makes one sale (the later one replays);
 * the log row's unique event id keeps one row, and the later delivery answers `stored`.
 * Statements are compiled once.
 */

type NewEvent = Insertable<BillingEventsTable>;

/** A settled event's row. */
export type SettledEvent = NewEvent & { status: Exclude<BillingEventStatus, 'processing'> };

const selectStored = definePreparedQuery<
  { id: number },
  { programId: number; provider: string; eventId: string }
>((db, param) =>
  db
    .selectFrom('billing_events')
    .select('id')
    .where('program_id', '=', param('programId'))
    .where('provider', '=', param('provider') as BillingProvider)
    .where('event_id', '=', param('eventId')),
);

const insertSettled = definePreparedQuery<{ id: number }, NewEvent>((db, param) =>
  db
    .insertInto('billing_events')
    .values({
      program_id: param('program_id'),
      provider: param('provider'),
      event_id: param('event_id'),
      type: param('type'),
      status: param('status'),
      reason: param('reason'),
      payload: param('payload'),
      transaction_key: param('transaction_key'),
      customer_key: param('customer_key'),
      processor_customer: param('processor_customer'),
      awaits: param('awaits'),
      once_id: param('once_id'),
      created_at: param('created_at'),
      updated_at: param('updated_at'),
    })
    .onConflict((conflict) => conflict.columns(['program_id', 'provider', 'event_id']).doNothing())
    .returning('id'),
);

/** A sale recorded from an event: its key, amount and the ids a refund may name it by. */
export interface SaleIds {
  key: string;
  amountMicros: bigint;
  refs: readonly string[];
}

interface SaleParams {
  programId: number;
  provider: BillingProvider;
  key: string;
  amount: bigint;
}

const insertSale = definePreparedQuery<never, SaleParams>((db, param) =>
  db
    .insertInto('billing_sales')
    .values({
      program_id: param('programId'),
      provider: param('provider'),
      transaction_key: param('key'),
      amount: param('amount'),
      refunded: 0,
    })
    .onConflict((conflict) => conflict.columns(['program_id', 'provider', 'transaction_key']).doNothing()),
);

/** The refs' insert by number of refs (an invoice has two or three). */
const refsInserts = new Map<number, ReturnType<typeof defineRefsInsert>>();

function defineRefsInsert(count: number) {
  return definePreparedQuery<never, Record<string, unknown>>((db, param) =>
    db
      .insertInto('billing_sale_refs')
      .values(
        Array.from({ length: count }, (_, i) => ({
          program_id: param('programId') as number,
          provider: param('provider') as BillingProvider,
          ref: param(`ref${i}`) as string,
          transaction_key: param('key') as string,
        })),
      )
      .onConflict((conflict) => conflict.columns(['program_id', 'provider', 'ref']).doNothing()),
  );
}

function refsStatement(db: Kysely<DB>, sale: SaleParams, refs: readonly string[]): BoundStatement {
  let insert = refsInserts.get(refs.length);
  if (!insert) {
    insert = defineRefsInsert(refs.length);
    refsInserts.set(refs.length, insert);
  }
  return insert.statement(db, { ...sale, ...Object.fromEntries(refs.map((ref, i) => [`ref${i}`, ref])) });
}

/**
 * Logs the settled event and, when it recorded a sale, the sale's amount and the ids a refund may
 * name it by (its key first): one statement on PostgreSQL. Its id, or undefined when its event id
 * is stored already.
 */
async function logSettled(db: Kysely<DB>, row: SettledEvent, sale: SaleIds | undefined) {
  const statements = [insertSettled.statement(db, row)];
  if (sale) {
    const params = {
      programId: row.program_id,
      provider: row.provider,
      key: sale.key,
      amount: sale.amountMicros,
    };
    statements.push(
      insertSale.statement(db, params),
      refsStatement(db, params, [...new Set([sale.key, ...sale.refs])]),
    );
  }
  const [logged] = await queryTogether<{ id: number }>(db, statements);
  return logged ? Number(logged.id) : undefined;
}

async function isStored(db: Kysely<DB>, write: EventWrite<unknown>) {
  const [row] = await selectStored(db, {
    programId: write.programId,
    provider: write.provider,
    eventId: write.eventId,
  });
  return row !== undefined;
}

/** What writing a new event takes; the service decides every step. */
export interface EventWrite<Outcome> {
  programId: number;
  provider: BillingProvider;
  eventId: string;
  /** Applies the event: inside `trx` when given (the log row's transaction), else each write on its own. */
  apply(trx: Kysely<DB> | undefined): Promise<Outcome>;
  settled(outcome: Outcome): { row: SettledEvent; sale?: SaleIds | undefined };
  /** Whether an error of `apply` hands the event to the claimed path. */
  refused(error: unknown): boolean;
}

/**
 * The event logged, with its row's id and what applying it answered; `stored` when its event id
 * is stored already (then this run changed nothing, or replayed what the stored run did);
 * `refused` when `apply` refused (nothing of the event is kept).
 */
export type EventWritten<Outcome> = { id: number; outcome: Outcome } | 'stored' | 'refused';

export type EventWriter = <Outcome>(write: EventWrite<Outcome>) => Promise<EventWritten<Outcome>>;

/** The writer of new events, chosen once by database. */
export function eventWriterOf(
  database: Pick<Database, 'db' | 'dialect' | 'inWriteTransaction'>,
): EventWriter {
  return pick<EventWriter>(database, {
    sqlite: (write) => writeInOne(database, write),
    postgres: (write) => writeStepByStep(database.db, write),
  });
}

async function writeInOne<Outcome>(
  database: Pick<Database, 'inWriteTransaction'>,
  write: EventWrite<Outcome>,
): Promise<EventWritten<Outcome>> {
  try {
    return await database.inWriteTransaction(async (trx) => {
      if (await isStored(trx, write)) return 'stored' as const;
      const outcome = await write.apply(trx);
      const { row, sale } = write.settled(outcome);
      const id = await logSettled(trx, row, sale);
      // The write transaction excludes every other writer since the look-up.
      if (id === undefined) throw new Error('an event was logged under a write transaction');
      return { id, outcome };
    });
  } catch (error) {
    if (write.refused(error)) return 'refused';
    throw error;
  }
}

async function writeStepByStep<Outcome>(
  db: Kysely<DB>,
  write: EventWrite<Outcome>,
): Promise<EventWritten<Outcome>> {
  if (await isStored(db, write)) return 'stored';
  let outcome: Outcome;
  try {
    outcome = await write.apply(undefined);
  } catch (error) {
    if (write.refused(error)) return 'refused';
    throw error;
  }
  const { row, sale } = write.settled(outcome);
  const id = await logSettled(db, row, sale);
  return id === undefined ? 'stored' : { id, outcome };
}
