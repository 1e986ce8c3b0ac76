import { type Insertable, type Kysely, sql } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';
import { nextId } from '../../db/next-id.ts';
import {
  type BoundStatement,
  definePreparedListQuery,
  definePreparedQuery,
  defineRowsInsert,
  type PreparedQuery,
} from '../../db/prepared.ts';
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

/** A settled event with the id its row was given ahead (PostgreSQL, `selectStoredTakingIds`). */
export type NumberedEvent = SettledEvent & { id: number };

const numberedColumns = ['id', ...eventColumns] as const satisfies readonly (keyof NumberedEvent)[];

/** `eventsInsert` with the rows' ids given. */
export const numberedEventsInsert = rowsInsertSkippingTaken<NumberedEvent>(
  'billing_events',
  numberedColumns,
  ['program_id', 'provider', 'event_id'],
  ['id', 'event_id'],
);

/**
 * The log row written with its event's sale, in the sale's statement: no ON CONFLICT, so an event
 * id logged meanwhile (another delivery of the event, claimed) aborts the sale with it rather
 * than answering an id that was not written.
 */
export const eventWithSaleInsert = defineRowsInsert<NumberedEvent>('billing_events', numberedColumns);

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

/** Refunds of the program waiting for one of `refs`, oldest first. */
const selectWaitingFor = definePreparedListQuery<
  { id: number; awaits: string },
  { programId: number; provider: BillingProvider },
  string
>((db, param, refs) =>
  db
    .selectFrom('billing_events')
    .select(['id', 'awaits'])
    .where('program_id', '=', param('programId'))
    .where('provider', '=', param('provider'))
    .where('awaits', 'in', refs)
    .where('status', '=', 'pending')
    .orderBy('id'),
);

export function selectWaiting(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  refs: readonly string[],
) {
  return selectWaitingFor(db, { programId, provider }, refs);
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

/** Which of the asked event ids are stored, an id taken ahead for each new log row, and whether refunds wait. */
interface StoredAndIds {
  stored: string[];
  ids: (number | string)[];
  pending: boolean;
}

/** `selectStoredTakingIds` by number of event ids asked and of ids taken. */
const storedSelects = new Map<string, PreparedQuery<StoredAndIds, Record<string, unknown>>>();

/**
 * PostgreSQL: which of `eventIds` are stored, and `take` ids of `billing_events` for the rows
 * the events not stored will log, in one statement: a log row written with its sale (in the
 * sale's statement) must know its id before, since its event's answer names it. It also tells
 * whether any refund of the program waits for a sale: when none does, a sale's look-up of the
 * refunds waiting for it is skipped (a refund stored `pending` meanwhile is run by the worker's
 * sweep, integrations.sweep.service.ts).
 */
export async function selectStoredTakingIds(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  eventIds: readonly string[],
  take: number,
): Promise<{ stored: Set<string>; ids: number[]; pending: boolean }> {
  const shape = `${eventIds.length}:${take}`;
  let select = storedSelects.get(shape);
  if (!select) {
    select = definePreparedQuery<StoredAndIds, Record<string, unknown>>((db, param) => {
      const stored = db
        .selectFrom('billing_events')
        .select('event_id')
        .where('program_id', '=', param('programId') as number)
        .where('provider', '=', param('provider') as BillingProvider)
        .where(
          'event_id',
          'in',
          eventIds.map((_, i) => param(`id${i}`) as string),
        );
      const waiting = db
        .selectFrom('billing_events')
        .select(sql.lit(1).as('one'))
        .where('program_id', '=', param('programId') as number)
        .where('provider', '=', param('provider') as BillingProvider)
        // The partial index of refunds that wait (migration 0038) holds only rows with `awaits`.
        .where('awaits', 'is not', null)
        .where('status', '=', 'pending');
      return db.selectNoFrom([
        sql<string[]>`array(${stored})`.as('stored'),
        sql<boolean>`exists(${waiting})`.as('pending'),
        sql<number[]>`array(select ${nextId('billing_events')} from generate_series(1, ${sql.lit(take)}))`.as(
          'ids',
        ),
      ]) as never;
    });
    storedSelects.set(shape, select);
  }
  const [row] = await select(db, {
    programId,
    provider,
    ...Object.fromEntries(eventIds.map((id, i) => [`id${i}`, id])),
  });
  return {
    stored: new Set(row?.stored ?? []),
    ids: (row?.ids ?? []).map(Number),
    pending: row?.pending ?? true,
  };
}
