import type { Kysely } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';
import { present } from '../../core/present.ts';
import { coalescerPerDatabase } from '../../db/coalescer.ts';
import type { Database } from '../../db/database.ts';
import { pick } from '../../db/locks.ts';
import type { BoundStatement } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { type CompanionWrites, queryTogether } from '../../db/together.ts';
import {
  eventsInsert,
  eventWithSaleInsert,
  isStored,
  type NumberedEvent,
  numberedEventsInsert,
  type RefRow,
  refsInsert,
  type SaleRow,
  type SettledEvent,
  salesInsert,
  selectStoredTakingIds,
  selectWaiting,
} from './integrations.receive.statements.ts';

export type { SettledEvent };

/**
 * How a new event is written (integrations.at-once.ts, ADR 0103): looked for, applied, and logged
 * once with its outcome and the sale's ids; then the refunds that waited for those ids are found.
 * The service gives the steps; the writer chooses, by database, how they reach the rows:
 * - SQLite: all in one write transaction, which the write batcher's group commit shares with the
 *   writes that arrive together (one writer, where a commit costs more than the statements);
 * - PostgreSQL: each step on its own, no transaction held between them: the look-up (with the
 *   others of the program's turn, in one statement), which also takes the log row's id; the sale
 *   by the transactions service's own strategy (read unlocked, written guarded, coalesced with the
 *   program's other sales), its log rows (the event, the sale's ids) written in the sale's own
 *   statement as its companion, so that the event commits once, as a sale of the API does. An
 *   event whose sale was not written (replayed, or no sale) is logged after, with the others of
 *   the program's turn, as one statement (one commit; db/coalescer.ts). A transaction held
 *   across the sale's round trips keeps a pooled connection through as many turns of a loaded
 *   event loop: the pool, not the database, then bounds the rate.
 * The row is written once, settled: no `processing` claim to update (on PostgreSQL a claim costs
 * a commit, and its update a second version of a row that carries the payload). Two deliveries of
 * one event at once both apply it, which the sale's key makes one sale (the later one replays);
 * the log row's unique event id keeps one row, and the later delivery answers `stored`.
 * Statements are compiled once.
 */
/** A sale recorded from an event: its key, amount and the ids a refund may name it by. */
export interface SaleIds {
  key: string;
  amountMicros: bigint;
  refs: readonly string[];
}

/** A settled event to log, with the sale it recorded. */
interface Logged<Row extends SettledEvent = SettledEvent> {
  row: Row;
  sale: SaleIds | undefined;
}

/** PostgreSQL: an event logged with the id its look-up took. */
type NumberedLogged = Logged<NumberedEvent>;

/** What logging an event answered: its row's id (undefined when its event id is stored already). */
export interface LoggedAs {
  id: number | undefined;
  /** Refunds that arrived before the event's sale and wait for one of its ids, oldest first. */
  waiting: number[];
}

/** The sale rows and the reference rows (the sale's key first) of settled events, each key once. */
function saleRowsOf(items: readonly Logged[]) {
  const sales = new Map<string, SaleRow>();
  const refs = new Map<string, RefRow>();
  for (const { row, sale } of items) {
    if (!sale) continue;
    const base = { program_id: row.program_id, provider: row.provider, transaction_key: sale.key };
    if (!sales.has(sale.key)) sales.set(sale.key, { ...base, amount: sale.amountMicros, refunded: 0 });
    for (const ref of [sale.key, ...sale.refs]) if (!refs.has(ref)) refs.set(ref, { ...base, ref });
  }
  return { sales: [...sales.values()], refs: [...refs.values()] };
}

/** Refunds that wait for one of `refs`, told apart per event (by the ids of its sale). */
async function waitingFor(db: Kysely<DB>, items: readonly Logged[], refs: readonly RefRow[]) {
  const [first] = items;
  const waiting =
    first && refs.length > 0
      ? await selectWaiting(
          db,
          first.row.program_id,
          first.row.provider,
          refs.map((row) => row.ref),
        )
      : [];
  return items.map((item) => {
    const mine = new Set(item.sale ? [item.sale.key, ...item.sale.refs] : []);
    return waiting.filter((row) => mine.has(row.awaits)).map((row) => Number(row.id));
  });
}

/**
 * Logs settled events and, for those that recorded a sale, the sale's amount and the ids a refund
 * may name it by (its key first): one statement on PostgreSQL. Then, once those ids are stored,
 * the refunds that waited for them: one look-up for the batch. Events of one batch have distinct
 * event ids and one program and provider.
 */
async function logSettled(db: Kysely<DB>, items: readonly NumberedLogged[]): Promise<LoggedAs[]> {
  const { sales, refs } = saleRowsOf(items);
  const logged = await queryTogether<{ id: number; event_id: string }>(db, [
    ...numberedEventsInsert.statements(
      db,
      items.map((item) => item.row),
    ),
    ...salesInsert.statements(db, sales),
    ...refsInsert.statements(db, refs),
  ]);
  const ids = new Map(logged.map((row) => [row.event_id, Number(row.id)]));
  const waiting = await waitingFor(db, items, refs);
  return items.map((item, i) => ({ id: ids.get(item.row.event_id), waiting: waiting[i] ?? [] }));
}

/**
 * SQLite: one settled event logged inside the write transaction, its statements run as prepared
 * queries (at once, as the transaction's other prepared statements) rather than through the query
 * builder's executor: on SQLite a statement is a call within the process, and the executor's
 * steps cost more than the inserts themselves.
 */
async function logOne(trx: Kysely<DB>, item: Logged): Promise<LoggedAs> {
  const { sales, refs } = saleRowsOf([item]);
  const [logged] = await eventsInsert.run(trx, [item.row]);
  await salesInsert.run(trx, sales);
  await refsInsert.run(trx, refs);
  const [waiting = []] = await waitingFor(trx, [item], refs);
  return { id: logged === undefined ? undefined : Number(logged.id), waiting };
}

/**
 * PostgreSQL: an event's log rows as its sale's companion (transactions service,
 * `SaleCompanion`), written in the sale's statement only when the sale is.
 */
function logStatements(db: Kysely<DB>, item: NumberedLogged): BoundStatement[] {
  const { sales, refs } = saleRowsOf([item]);
  return [
    ...eventWithSaleInsert(db, [item.row]),
    ...salesInsert.statements(db, sales),
    ...refsInsert.statements(db, refs),
  ];
}

/** Settled events logged in one statement at most (each carries its payload). */
const MAX_LOGGED = 16;

/**
 * The first events of a turn of one processor with distinct event ids; a second delivery of one,
 * or another processor's event, waits for the next batch.
 */
function distinctEvents(queue: readonly NumberedLogged[]) {
  const batch: NumberedLogged[] = [];
  const rest: NumberedLogged[] = [];
  const seen = new Set<string>();
  const provider = queue[0]?.row.provider;
  for (const item of queue) {
    const joins = batch.length < MAX_LOGGED && item.row.provider === provider && !seen.has(item.row.event_id);
    if (joins) {
      seen.add(item.row.event_id);
      batch.push(item);
    } else rest.push(item);
  }
  return { batch, rest };
}

/** PostgreSQL: the events of a program settled in one turn, logged in one statement (one commit). */
const logCoalescer = coalescerPerDatabase<NumberedLogged, LoggedAs>((db) => ({
  take: distinctEvents,
  together: (_programId, batch) => logSettled(db, batch),
  alone: async (_programId, item) => present((await logSettled(db, [item]))[0], 'an answer per logged event'),
}));

interface StoredQuestion {
  provider: BillingProvider;
  eventId: string;
}

/** Redelivery look-ups asked in one statement at most. */
const MAX_LOOKED_UP = 64;

/** Look-ups of waiting refunds asked in one statement at most. */
const MAX_WAITING_ASKED = 16;

/**
 * PostgreSQL: the waiting refunds of the program's events whose sales were written in one turn
 * (their ids stored with them), looked up in one statement; another processor's wait for the next.
 */
const waitingCoalescer = coalescerPerDatabase<Logged, number[]>((db) => ({
  take: (queue) => {
    const provider = queue[0]?.row.provider;
    const batch: Logged[] = [];
    const rest: Logged[] = [];
    for (const item of queue)
      (batch.length < MAX_WAITING_ASKED && item.row.provider === provider ? batch : rest).push(item);
    return { batch, rest };
  },
  together: (_programId, batch) => waitingFor(db, batch, saleRowsOf(batch).refs),
  alone: async (_programId, item) => (await waitingFor(db, [item], saleRowsOf([item]).refs))[0] ?? [],
}));

/** Whether the event is stored already, the id its log row takes when it is not, and whether refunds wait. */
interface StoredAnswer {
  stored: boolean;
  id: number;
  pending: boolean;
}

/**
 * PostgreSQL: the redelivery look-ups of a program's events that arrive in one turn, as one
 * statement (one round trip instead of one each), taking the log rows' ids with them; events of
 * another processor wait for the next.
 */
const storedCoalescer = coalescerPerDatabase<StoredQuestion, StoredAnswer>((db) => ({
  take: (queue) => {
    const provider = queue[0]?.provider;
    const batch: StoredQuestion[] = [];
    const rest: StoredQuestion[] = [];
    for (const item of queue)
      (batch.length < MAX_LOOKED_UP && item.provider === provider ? batch : rest).push(item);
    return { batch, rest };
  },
  together: (programId, batch) => lookUp(db, programId, batch),
  alone: async (programId, item) => present((await lookUp(db, programId, [item]))[0], 'a look-up'),
}));

async function lookUp(db: Kysely<DB>, programId: number, batch: readonly StoredQuestion[]) {
  const [first] = batch;
  if (!first) return [];
  const eventIds = [...new Set(batch.map((item) => item.eventId))];
  const { stored, ids, pending } = await selectStoredTakingIds(
    db,
    programId,
    first.provider,
    eventIds,
    batch.length,
  );
  return batch.map((item, i) => ({
    stored: stored.has(item.eventId),
    id: present(ids[i], 'an id taken per look-up'),
    pending,
  }));
}

/** What writing a new event takes; the service decides every step. */
export interface EventWrite<Outcome> {
  programId: number;
  provider: BillingProvider;
  eventId: string;
  /**
   * Applies the event: inside `trx` when given (the log row's transaction), else each write on
   * its own; then a sale it records is written with `logWith(outcome)` (its log rows), `outcome`
   * being what `apply` answers when it does.
   */
  apply(trx: Kysely<DB> | undefined, logWith?: (outcome: Outcome) => CompanionWrites): Promise<Outcome>;
  settled(outcome: Outcome): { row: SettledEvent; sale?: SaleIds | undefined };
  /** Whether an error of `apply` hands the event to the claimed path. */
  refused(error: unknown): boolean;
}

/**
 * The event logged, with its row's id and what applying it answered; `stored` when its event id
 * is stored already (then this run changed nothing, or replayed what the stored run did);
 * `refused` when `apply` refused (nothing of the event is kept).
 */
export type EventWritten<Outcome> =
  | { id: number; outcome: Outcome; waiting: number[] }
  | 'stored'
  | 'refused';

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
      const logged = await logOne(trx, { row, sale });
      // The write transaction excludes every other writer since the look-up.
      if (logged.id === undefined) throw new Error('an event was logged under a write transaction');
      return { id: logged.id, outcome, waiting: logged.waiting };
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
  const asked = { provider: write.provider, eventId: write.eventId };
  const { stored, id, pending } = await storedCoalescer(db).run(write.programId, asked);
  if (stored) return 'stored';
  const numbered = (outcome: Outcome): NumberedLogged => {
    const { row, sale } = write.settled(outcome);
    return { row: { ...row, id }, sale };
  };
  let withSale: NumberedLogged | undefined;
  let outcome: Outcome;
  try {
    outcome = await write.apply(undefined, (outcome) => {
      const item = numbered(outcome);
      return {
        statements: logStatements(db, item),
        written: () => {
          withSale = item;
        },
      };
    });
  } catch (error) {
    if (write.refused(error)) return 'refused';
    throw error;
  }
  if (withSale) {
    // Once the sale's ids are stored (a refund that arrives later finds them), and only when a
    // refund waited before the sale (a refund stored meanwhile is the worker sweep's).
    const waiting = pending ? await waitingCoalescer(db).run(write.programId, withSale) : [];
    return { id, outcome, waiting };
  }
  const logged = await logCoalescer(db).run(write.programId, numbered(outcome));
  return logged.id === undefined ? 'stored' : { id: logged.id, outcome, waiting: logged.waiting };
}
