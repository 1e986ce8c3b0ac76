import type { Kysely } from 'kysely';
import type { SaleFigures } from '../../core/sales.ts';
import type { BoundStatement } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { addCounterDeltas, counterDeltaStatements } from '../counters/counters.repository.ts';
import { programActivityStatement, recordProgramActivity } from '../program/program.service.ts';

/**
 * Writes the figures a sale decision moves, in the caller's transaction: the program's first,
 * then the entities' in their fixed order. Every writer takes these rows in this order (PostgreSQL
 * row locks), so two sales, or a sale and a signup, of one partner or referrer cannot deadlock.
 * `at` is the sale's own time: taking a sale back moves the figures of the day it counted on.
 */
export async function applySaleFigures(trx: Kysely<DB>, programId: number, at: string, figures: SaleFigures) {
  if (Object.keys(figures.program).length > 0)
    await recordProgramActivity(trx, programId, at, figures.program);
  await addCounterDeltas(trx, programId, figures.entities);
}

/**
 * The writes `applySaleFigures` makes, not run: to go with the sale's other writes in one
 * statement (db/together.ts), the program's figures first, as every writer takes them.
 */
export function saleFigureStatements(
  trx: Kysely<DB>,
  programId: number,
  at: string,
  figures: SaleFigures,
): BoundStatement[] {
  const program = programActivityStatement(trx, programId, at, figures.program);
  return [...(program ? [program] : []), ...counterDeltaStatements(trx, programId, figures.entities)];
}
