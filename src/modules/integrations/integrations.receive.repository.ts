import type { Insertable, Kysely } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';
import { type BoundStatement, definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { executeTogether } from '../../db/together.ts';
import type { BillingEventStatus, BillingEventsTable } from './integrations.tables.ts';

/**
 * The writes of an event recorded and applied in one write transaction (integrations.at-once.ts),
 * compiled once: the claim of the event's row, then its outcome with the sale's ids, as one
 * statement on PostgreSQL (db/together.ts).
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
export async function claimNewEvent(db: Kysely<DB>, values: NewEvent): Promise<number | undefined> {
  const [row] = await insertClaim(db, values);
  return row ? Number(row.id) : undefined;
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
export async function settleEvent(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  id: number,
  settlement: EventSettlement,
  sale?: { key: string; amountMicros: bigint; refs: readonly string[] },
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
