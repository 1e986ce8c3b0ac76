import type { Deps } from '../../context.ts';
import { FAILURE_MEMORY_MS } from '../../core/portal.ts';
import { formatTimestamp } from '../../core/time.ts';
import { inBatches, type SweepBounds, sweepBounds } from '../../db/in-batches.ts';
import { forgetOldSightings } from '../fraud/fraud.sightings.service.ts';
import * as repository from './portal.repository.ts';

/**
 * The worker's sweep of what the portals no longer read: sessions and one-time tokens past their
 * expiry (every read checks it), failed sign-ins past the time they count, and portal sightings
 * past the time `same_address` reads them. Without it these
 * tables only grow: a session a sign-in, a token a link e-mailed, a row a guessing address.
 * `batch` rows a statement, at most `max` rows a table a pass. Answers how many rows went.
 */
export async function purgeExpiredPortalRecords(
  deps: Deps,
  options: Partial<SweepBounds> = {},
): Promise<number> {
  const { batch, max } = sweepBounds(options);
  const db = deps.database.db;
  const nowMicros = deps.clock.nowMicros();
  const now = formatTimestamp(nowMicros);
  const forgotten = formatTimestamp(nowMicros - FAILURE_MEMORY_MS * 1000);
  const sweeps: ((limit: number) => Promise<number>)[] = [
    (limit) => repository.deleteExpired(db, 'portal_sessions', now, limit),
    (limit) => repository.deleteExpired(db, 'portal_tokens', now, limit),
    (limit) => repository.deleteFailuresBefore(db, forgotten, limit),
    // Where owners used their portals (fraud rule `same_address`), once too old to count.
    (limit) => forgetOldSightings(deps, limit),
  ];
  let purged = 0;
  for (const sweep of sweeps)
    purged += await inBatches(
      async (limit) => {
        const gone = await sweep(limit);
        return { examined: gone, changed: gone };
      },
      { batch, max },
    );
  return purged;
}
