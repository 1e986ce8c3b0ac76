import type { Insertable, Kysely } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';
import { type BoundStatement, definePreparedQuery, type PreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { BillingEventStatus, BillingEventsTable } from './integrations.tables.ts';

/**
 * The statements of the event writer (integrations.receive.repository.ts), compiled once (per
 * number of rows or ids where a statement takes several).
 */
export type NewEvent = Insertable<BillingEventsTable>;

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

/** A multi-row insert that skips rows whose unique key is taken, not run or run. */
export interface RowsInsert<Row> {
  /** The statement with its values, to go with others (db/together.ts); none for no rows. */
  statements(db: Kysely<DB>, rows: readonly Row[]): BoundStatement[];
  /** Runs it as a prepared query (on SQLite at once inside the write transaction), answering `returning`. */
  run(db: Kysely<DB>, rows: readonly Row[]): Promise<Record<string, unknown>[]>;
}

/**
 * A multi-row insert of `columns` into `table` that skips rows whose unique key is taken,
 * answering `returning` of the rows it inserted; compiled once per number of rows.
 */
function rowsInsertSkippingTaken<Row extends object>(
  table: 'billing_events' | 'billing_sales' | 'billing_sale_refs',
  columns: readonly (keyof Row & string)[],
  unique: readonly string[],
  returning: readonly string[] = [],
): RowsInsert<Row> {
  const byCount = new Map<number, PreparedQuery<Record<string, unknown>, Record<string, unknown>>>();
  const queryFor = (count: number) => {
    let query = byCount.get(count);
    if (!query) {
      query = definePreparedQuery<Record<string, unknown>, Record<string, unknown>>((db, param) => {
        const insert = db
          .insertInto(table)
          .values(
            Array.from(
              { length: count },
              (_, i) =>
                Object.fromEntries(columns.map((column) => [column, param(`${column}${i}`)])) as never,
            ),
          )
          .onConflict((conflict) => conflict.columns(unique as never).doNothing());
        return (returning.length > 0 ? insert.returning(returning as never) : insert) as never;
      });
      byCount.set(count, query);
    }
    return query;
  };
  const paramsOf = (rows: readonly Row[]) => {
    const params: Record<string, unknown> = {};
    rows.forEach((row, i) => {
      for (const column of columns) params[`${column}${i}`] = row[column];
    });
    return params;
  };
  return {
    statements: (db, rows) =>
      rows.length === 0 ? [] : [queryFor(rows.length).statement(db, paramsOf(rows))],
    run: async (db, rows) => (rows.length === 0 ? [] : queryFor(rows.length)(db, paramsOf(rows))),
  };
}

const eventColumns = [
  'program_id',
  'provider',
  'event_id',
  'type',
  'status',
  'reason',
  'payload',
  'transaction_key',
  'customer_key',
  'processor_customer',
  'awaits',
  'once_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof SettledEvent)[];

export const eventsInsert = rowsInsertSkippingTaken<SettledEvent>(
  'billing_events',
  eventColumns,
  ['program_id', 'provider', 'event_id'],
  ['id', 'event_id'],
);

export interface SaleRow {
  program_id: number;
  provider: BillingProvider;
  transaction_key: string;
  amount: bigint;
  refunded: number;
}

export const salesInsert = rowsInsertSkippingTaken<SaleRow>(
  'billing_sales',
  ['program_id', 'provider', 'transaction_key', 'amount', 'refunded'],
  ['program_id', 'provider', 'transaction_key'],
);

export interface RefRow {
  program_id: number;
  provider: BillingProvider;
  ref: string;
  transaction_key: string;
}

export const refsInsert = rowsInsertSkippingTaken<RefRow>(
  'billing_sale_refs',
  ['program_id', 'provider', 'ref', 'transaction_key'],
  ['program_id', 'provider', 'ref'],
);

/** Refunds waiting for one of `refs`, by number of refs. */
const waitingSelects = new Map<
  number,
  PreparedQuery<{ id: number; awaits: string }, Record<string, unknown>>
>();

export function selectWaiting(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  refs: readonly string[],
) {
  let select = waitingSelects.get(refs.length);
  if (!select) {
    select = definePreparedQuery<{ id: number; awaits: string }, Record<string, unknown>>(
      (db, param) =>
        db
          .selectFrom('billing_events')
          .select(['id', 'awaits'])
          .where('program_id', '=', param('programId') as number)
          .where('provider', '=', param('provider') as BillingProvider)
          .where(
            'awaits',
            'in',
            refs.map((_, i) => param(`ref${i}`) as string),
          )
          .where('status', '=', 'pending')
          .orderBy('id') as never,
    );
    waitingSelects.set(refs.length, select);
  }
  return select(db, { programId, provider, ...Object.fromEntries(refs.map((ref, i) => [`ref${i}`, ref])) });
}

/** Whether the event is stored already (a redelivery). */
export async function isStored(
  db: Kysely<DB>,
  write: { programId: number; provider: BillingProvider; eventId: string },
) {
  const [row] = await selectStored(db, {
    programId: write.programId,
    provider: write.provider,
    eventId: write.eventId,
  });
  return row !== undefined;
}

/** Which of `eventIds` are stored, by number of ids. */
const storedSelects = new Map<number, PreparedQuery<{ event_id: string }, Record<string, unknown>>>();

export function selectStoredAmong(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  eventIds: readonly string[],
) {
  let select = storedSelects.get(eventIds.length);
  if (!select) {
    select = definePreparedQuery<{ event_id: string }, Record<string, unknown>>(
      (db, param) =>
        db
          .selectFrom('billing_events')
          .select('event_id')
          .where('program_id', '=', param('programId') as number)
          .where('provider', '=', param('provider') as BillingProvider)
          .where(
            'event_id',
            'in',
            eventIds.map((_, i) => param(`id${i}`) as string),
          ) as never,
    );
    storedSelects.set(eventIds.length, select);
  }
  return select(db, { programId, provider, ...Object.fromEntries(eventIds.map((id, i) => [`id${i}`, id])) });
}
