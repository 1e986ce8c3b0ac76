import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { PayoutItemsTable, PayoutsTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';

/** Payout batches and their items; every query is scoped by the program. */

export type PayoutRow = Selectable<PayoutsTable>;
export type PayoutItemRow = Selectable<PayoutItemsTable>;

// Any constant: the first half of the advisory lock that serializes one program's payout creation.
const PAYOUT_LOCK = 72_150_016;

/** PostgreSQL: one payout of a program is made at a time (until the transaction ends). */
export async function lockProgramPayouts(db: Kysely<DB>, programId: number) {
  await sql`select pg_advisory_xact_lock(${sql.lit(PAYOUT_LOCK)}, ${programId}::int)`.execute(db);
}

export async function insertPayout(db: Kysely<DB>, values: Insertable<PayoutsTable>) {
  return db.insertInto('payouts').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertPayoutItems(db: Kysely<DB>, rows: Insertable<PayoutItemsTable>[]) {
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('payout_items')
      .values(rows.slice(i, i + 500))
      .execute();
}

export async function findPayoutByPublicId(
  db: Kysely<DB>,
  programId: number,
  publicId: string,
  lock = false,
) {
  let query = db
    .selectFrom('payouts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('public_id', '=', publicId);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updatePayout(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: { status: string; paid_at?: string; cancelled_at?: string },
) {
  await db
    .updateTable('payouts')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .execute();
}

export async function listPayouts(
  db: Kysely<DB>,
  programId: number,
  filter: { status?: string },
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db.selectFrom('payouts').selectAll().where('program_id', '=', programId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

/** Items of payouts, in partner order, `after` an item id (exports page through them). */
export async function listPayoutItems(
  db: Kysely<DB>,
  programId: number,
  payoutId: number,
  page: { after: number; limit: number } = { after: 0, limit: 1_000_000 },
) {
  return db
    .selectFrom('payout_items')
    .selectAll()
    .where('program_id', '=', programId)
    .where('payout_id', '=', payoutId)
    .where('id', '>', page.after)
    .orderBy('id')
    .limit(page.limit)
    .execute();
}
