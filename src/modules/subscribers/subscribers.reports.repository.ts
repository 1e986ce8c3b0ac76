import { type Kysely, sql } from 'kysely';
import { exportRows } from '../../db/export-pages.ts';
import { type CountRow, slice, type Window } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';

/** Read-only report queries of newsletter subscribers (issue 26): signups over time, the export. */

/** Newsletter subscribers created in the window; `referredOnly`: those a subscriber referred. */
export async function countSubscribers(
  db: Kysely<DB>,
  programId: number,
  window: Window,
  referredOnly: boolean,
): Promise<CountRow[]> {
  let query = db
    .selectFrom('subscribers')
    .select([slice('created_at', window.prefix).as('slice'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('program_id', '=', programId)
    .where('created_at', '>=', window.from)
    .where('created_at', '<', window.until);
  if (referredOnly) query = query.where('is_referred', '=', sql<boolean>`${sql.lit(true)}`);
  return query.groupBy(sql`1`).execute();
}

export const subscriberRows = exportRows('subscribers', (db, programId, filter: { referred?: boolean }) => {
  let query = db
    .selectFrom('subscribers')
    .select([
      'subscribers.id',
      'subscribers.created_at',
      'subscribers.public_id',
      'subscribers.email',
      'subscribers.name',
      'subscribers.status',
      'subscribers.code',
      'subscribers.is_referred',
      'subscribers.referrals_count',
    ])
    .where('subscribers.program_id', '=', programId);
  if (filter.referred !== undefined)
    query = query.where('subscribers.is_referred', '=', sql<boolean>`${sql.lit(filter.referred)}`);
  return query;
});
