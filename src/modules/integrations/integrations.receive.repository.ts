import type { Insertable, Kysely } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';
import type { Database } from '../../db/database.ts';
import { pick } from '../../db/locks.ts';
import { type BoundStatement, definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { executeTogether } from '../../db/together.ts';
import { releaseEvent } from './integrations.repository.ts';
import type { BillingEventStatus, BillingEventsTable } from './integrations.tables.ts';

/**
 * How a new event is written (integrations.at-once.ts): its row claimed, the event applied, its
 * outcome settled with the sale's ids. The service gives the steps; the writer chooses, by
 * database, how they reach the rows (ADR 0103):
 * - SQLite: all in one write transaction, which the write batcher's group commit shares with
 *   the writes that arrive together (one writer, where a commit costs more than the statements);
 * - PostgreSQL: each step on its own, no transaction held between them: the claim, the sale by
 *   the transactions service's own strategy (read unlocked, written guarded, coalesced with the
 *   program's other sales), the settlement as one statement. A transaction held across the
 *   sale's round trips would keep a pooled connection through as many turns of a loaded event
 *   loop, and the pool, not the database, would bound the rate.
 * Statements are compiled once.
 */

type NewEvent = Insertable<BillingEventsTable>;

const insertClaim = definePreparedQuery<{ id: number }, NewEvent>((db, param) =>
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

/** Inserts the event's row; its id, or undefined when this processor event id is stored already. */
async function claimNewEvent(db: Kysely<DB>, values: NewEvent): Promise<number | undefined> {
  const [row] = await insertClaim(db, values);
  return row ? Number(row.id) : undefined;
}

/** A sale recorded from an event: its key, amount and the ids a refund may name it by. */
export interface SaleIds {
  key: string;
  amountMicros: bigint;
  refs: readonly string[];
}

export interface EventSettlement {
  status: Exclude<BillingEventStatus, 'processing'>;
  reason: string | null;
  transaction_key: string | null;
  customer_key: string | null;
  processor_customer: string | null;
  updated_at: string;
}

const updateSettled = definePreparedQuery<never, EventSettlement & { programId: number; id: number }>(
  (db, param) =>
    db
      .updateTable('billing_events')
      .set({
        status: param('status'),
        reason: param('reason'),
        transaction_key: param('transaction_key'),
        customer_key: param('customer_key'),
        processor_customer: param('processor_customer'),
        updated_at: param('updated_at'),
      })
      .where('program_id', '=', param('programId'))
      .where('id', '=', param('id')),
);

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
 * Writes the outcome of a claimed event and, when it recorded a sale, the sale's amount and the
 * ids a refund may name it by (its key first): one statement on PostgreSQL.
 */
async function settleEvent(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  id: number,
  settlement: EventSettlement,
  sale?: SaleIds,
): Promise<void> {
  const statements = [updateSettled.statement(db, { ...settlement, programId, id })];
  if (sale) {
    const params = { programId, provider, key: sale.key, amount: sale.amountMicros };
    statements.push(
      insertSale.statement(db, params),
      refsStatement(db, params, [...new Set([sale.key, ...sale.refs])]),
    );
  }
  await executeTogether(db, statements);
}

/** What writing a new event takes; the service decides every step. */
export interface EventWrite<Outcome> {
  programId: number;
  provider: BillingProvider;
  claim: NewEvent;
  /** Applies the event: inside `trx` when given (the claim's transaction), else each write on its own. */
  apply(trx: Kysely<DB> | undefined): Promise<Outcome>;
  settle(outcome: Outcome): { settlement: EventSettlement; sale?: SaleIds | undefined };
  /** Whether an error of `apply` hands the event to the claimed path. */
  refused(error: unknown): boolean;
}

/**
 * The event written, with its row's id and what applying it answered; `stored` when its event id
 * is stored already; `refused` when `apply` refused (nothing of the event is kept).
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
      const id = await claimNewEvent(trx, write.claim);
      if (id === undefined) return 'stored' as const;
      const outcome = await write.apply(trx);
      const { settlement, sale } = write.settle(outcome);
      await settleEvent(trx, write.programId, write.provider, id, settlement, sale);
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
  const id = await claimNewEvent(db, write.claim);
  if (id === undefined) return 'stored';
  let outcome: Outcome;
  try {
    outcome = await write.apply(undefined);
  } catch (error) {
    // The claim is forgotten: the claimed path (refused) or the processor's retry (a fault) runs it.
    await releaseEvent(db, write.programId, id).catch(() => {});
    if (write.refused(error)) return 'refused';
    throw error;
  }
  const { settlement, sale } = write.settle(outcome);
  await settleEvent(db, write.programId, write.provider, id, settlement, sale);
  return { id, outcome };
}
