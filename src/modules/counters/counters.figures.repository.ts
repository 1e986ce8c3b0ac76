import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { VersionCheck } from '../../core/guarded-batches.ts';
import type { FigureChange } from '../../core/sales.ts';
import { dayOf } from '../../core/time.ts';
import { carryingUpdate, splitCounterDelta } from '../../db/counter-parts.ts';
import { counterSlot, isPostgres } from '../../db/counter-slots.ts';
import { type BoundStatement, definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { counterDeltaStatements } from './counters.repository.ts';

/**
 * The one owner of figures (ADR 0003, 0004): the program's activity by day (program_counters),
 * the entities' counters (counters.repository.ts) and the buyer's version that guards a figure
 * read without a lock (migration 0023). Writers that put a sale or a signup in one statement ask
 * for `figureWrites` and `versionGuards`; the statement builders stay here.
 */

/** The program's figures of one day, as a sale or a signup moves them. */
export interface ProgramDay {
  at: string;
  figures: Record<string, bigint | number>;
}

/** What one or more sales or signups move: the program's figures by day, the entities' merged. */
export interface FigureWrites {
  program: readonly ProgramDay[];
  entities: readonly FigureChange[];
}

/** Adds to the program's figures of the day of `at` (and its running total), in the caller's transaction. */
export async function addProgramActivity(
  db: Kysely<DB>,
  programId: number,
  at: string,
  deltas: Record<string, bigint | number>,
): Promise<void> {
  await addToCounters(db, programId, dayOf(at), deltas);
}

/**
 * The writes of `figures`, not run, to go with a sale's other writes in one statement
 * (db/together.ts): the program's first, then the entities', the order every writer takes them in
 * (PostgreSQL row locks), so two writers of one partner or referrer cannot deadlock.
 */
export function figureWrites(db: Kysely<DB>, programId: number, figures: FigureWrites): BoundStatement[] {
  const program = figures.program
    .map((day) => countersStatement(db, programId, dayOf(day.at), day.figures))
    .filter((statement): statement is BoundStatement => statement !== undefined);
  return [...program, ...counterDeltaStatements(db, programId, figures.entities)];
}

/** The guards of buyers read without a lock, in the order given (executeGated runs them first). */
export function versionGuards(
  db: Kysely<DB>,
  programId: number,
  checks: readonly VersionCheck[],
): BoundStatement[] {
  return checks.map((check) =>
    guardSaleVersion.statement(db, {
      programId,
      id: check.customerId,
      seen: check.seen,
      step: check.moves ? 1 : 0,
    }),
  );
}

/**
 * A buyer locked as it was read gets a new version with the sale's other writes (PostgreSQL);
 * nothing on SQLite, whose sales are never decided without a lock.
 */
export function versionBump(db: Kysely<DB>, programId: number, id: number): BoundStatement[] {
  return isPostgres(db) ? [bumpSaleVersion.statement(db, { programId, id })] : [];
}

const bumpSaleVersion = definePreparedQuery<never, { programId: number; id: number }>((db, param) =>
  db
    .updateTable('customers')
    .set({ sale_version: sql`sale_version + 1` })
    .where('program_id', '=', param('programId'))
    .where('id', '=', param('id')),
);

/** Moves a buyer's version on (its row then held to the commit on PostgreSQL). */
export async function bumpBuyerVersion(db: Kysely<DB>, programId: number, id: number): Promise<void> {
  await bumpSaleVersion(db, { programId, id });
}

/**
 * A sale's guard (migration 0023): answers the buyer's id only if its version is still `seen`,
 * and moves it on by `step` (1 when later sales decide on this one, else 0: the row is still
 * locked to the commit, so concurrent sales of the buyer wait in line, but none decides again).
 * Run first in the sale's one statement, whose other writes apply only when it answered its row
 * (db/gated.ts).
 */
const guardSaleVersion = definePreparedQuery<
  { id: number },
  { programId: number; id: number; seen: number; step: number }
>((db, param) =>
  db
    .updateTable('customers')
    .set({ sale_version: sql`sale_version + ${param('step')}` })
    .where('program_id', '=', param('programId'))
    .where('id', '=', param('id'))
    .where('sale_version', '=', param('seen'))
    .returning('id'),
);

type CounterUpsertParams = { programId: number; day: string } & Record<`metric${number}`, string> &
  Record<`value${number}` | `valueHi${number}`, number>;

/** One compiled upsert per number of metrics: a sale moves one to three (two to six rows). */
const upserts = new Map<number, ReturnType<typeof counterUpsert>>();

/** Two rows per metric, the day's and the running total's, in that order, in the connection's slot. */
function counterUpsert(metrics: number) {
  return definePreparedQuery<never, CounterUpsertParams>((db, param) =>
    db
      .insertInto('program_counters')
      .values(
        Array.from({ length: metrics }, (_, i) =>
          // The running total's day is written by the builder: every call binds it as compiled.
          [param('day'), 'total'].map((day) => ({
            program_id: param('programId'),
            metric: param(`metric${i}`),
            day,
            value: param(`value${i}`),
            value_hi: param(`valueHi${i}`),
            slot: counterSlot(db),
          })),
        ).flat(),
      )
      .onConflict((oc) =>
        oc.columns(['program_id', 'metric', 'day', 'slot']).doUpdateSet(carryingUpdate('program_counters')),
      ),
  );
}

/**
 * Adds each delta (a count, or micro-units as a bigint) to the day's row and to the running
 * total, creating rows as needed; deltas are split as db/counter-parts.ts describes.
 */
async function addToCounters(
  db: Kysely<DB>,
  programId: number,
  day: string,
  deltas: Record<string, bigint | number>,
) {
  const upsert = countersUpsert(programId, day, deltas);
  if (upsert) await upsert.query(db, upsert.params);
}

/** The statement `addToCounters` runs, not run; undefined when every delta is zero. */
function countersStatement(
  db: Kysely<DB>,
  programId: number,
  day: string,
  deltas: Record<string, bigint | number>,
): BoundStatement | undefined {
  const upsert = countersUpsert(programId, day, deltas);
  return upsert?.query.statement(db, upsert.params);
}

function countersUpsert(programId: number, day: string, deltas: Record<string, bigint | number>) {
  const params: CounterUpsertParams = { programId, day };
  let metrics = 0;
  for (const [metric, delta] of Object.entries(deltas)) {
    if (delta === 0 || delta === 0n) continue;
    const [value, valueHi] = splitCounterDelta(delta);
    params[`metric${metrics}`] = metric;
    params[`value${metrics}`] = value;
    params[`valueHi${metrics}`] = valueHi;
    metrics += 1;
  }
  if (metrics === 0) return undefined;
  let upsert = upserts.get(metrics);
  if (!upsert) upserts.set(metrics, (upsert = counterUpsert(metrics)));
  return { query: upsert, params };
}
