import { sql } from 'kysely';
import type { Deps } from '../../context.ts';
import { randomAlphanumeric } from '../../core/ids.ts';
import { programMetrics } from '../../core/program-stats.ts';
import { formatTimestamp } from '../../core/time.ts';
import { type BulkRow, moveIdentityPastRows, nextFreeId } from '../../db/bulk-load.ts';
import { recordProgramActivity } from '../../modules/program/program.service.ts';
import { ProgramDays } from './seed-figures.ts';
import { seedProgram } from './seed-program.ts';

/**
 * `vouch seed --subscribers N [--program ID]` (the `seed` command hands it over): subscribers of a
 * newsletter program, a new one unless `--program` names one. Subscriber `i > 0` is referred by
 * subscriber `⌊(i − 1) / 10⌋`, so most referrers have ten counting referrals; `referrals_count` and
 * the program counters are written from the same numbers. Milestones are not unlocked: seed before
 * creating rewards. Rows go in through multi-row inserts in one transaction; run it while no server
 * writes to the database.
 */

const DAY_MICROS = 86_400_000_000;
/** Rows per insert: 16 columns each stay well under both databases' limits on bound values. */
const ROWS_PER_INSERT = 1_000;

const COLUMNS = [
  'id',
  'program_id',
  'public_id',
  'email',
  'email_lower',
  'name',
  'approved',
  'status',
  'code',
  'secret',
  'is_referred',
  'referrer_id',
  'referrals_count',
  'request_digest',
  'created_at',
  'updated_at',
] as const;

export async function seedNewsletter(deps: Deps, input: { programId?: number; subscribers: number }) {
  const started = performance.now();
  const program = await seedProgram(deps, 'newsletter', input.programId, {
    name: 'Seeded newsletter',
    website: 'https://news.example.com',
  });
  const programId = program.id;
  const prefix = randomAlphanumeric(4);
  const now = deps.clock.nowMicros();
  // Signups spread over the overview's two 30-day windows.
  const start = now - 58 * DAY_MICROS;
  const n = input.subscribers;
  const programDays = new ProgramDays();

  await deps.database.db.transaction().execute(async (trx) => {
    const first = await nextFreeId(trx, 'subscribers');
    const referrerOf = (i: number) => (i === 0 ? -1 : Math.floor((i - 1) / 10));
    for (let from = 0; from < n; from += ROWS_PER_INSERT) {
      const rows: BulkRow[] = [];
      for (let i = from; i < Math.min(n, from + ROWS_PER_INSERT); i++) {
        const created = formatTimestamp(start + Math.floor(((now - start) * i) / Math.max(1, n)));
        const referrer = referrerOf(i);
        // Subscriber i referred 10i+1 … 10i+10, those below n.
        const referrals = Math.max(0, Math.min(n - 1, 10 * i + 10) - 10 * i);
        const email = `${prefix.toLowerCase()}.s${i}@subscribers.example`;
        rows.push([
          first + i,
          programId,
          `${prefix}S${i}`,
          email,
          email,
          `Subscriber ${i}`,
          true,
          'active',
          `${prefix}c${i}`,
          randomAlphanumeric(32),
          referrer >= 0,
          referrer >= 0 ? first + referrer : null,
          referrals,
          'seed',
          created,
          created,
        ]);
        programDays.add(created, {
          [programMetrics.customers]: 1n,
          [programMetrics.referredCustomers]: referrer >= 0 ? 1n : 0n,
          // Counted on the referrer's signup day, which its first referral follows closely.
          [programMetrics.referringCustomers]: referrals > 0 ? 1n : 0n,
        });
      }
      const values = sql.join(rows.map((row) => sql`(${sql.join([...row])})`));
      await sql`insert into subscribers (${sql.join(COLUMNS.map((c) => sql.ref(c)))}) values ${values}`.execute(
        trx,
      );
    }
    for (const [day, deltas] of programDays.days()) await recordProgramActivity(trx, programId, day, deltas);
    await moveIdentityPastRows(trx, 'subscribers');
  });
  return {
    ...program.shown,
    seeded: {
      subscribers: n,
      key_prefix: prefix,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    },
  };
}
