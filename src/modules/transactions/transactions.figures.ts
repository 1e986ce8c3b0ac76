import type { Kysely } from 'kysely';
import type { SaleFigures } from '../../core/sales.ts';
import type { DB } from '../../db/tables.ts';
import { addCounterDeltas } from '../counters/counters.repository.ts';
import { recordProgramActivity } from '../program/program.service.ts';

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
