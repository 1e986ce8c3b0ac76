import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Affiliate lists walk newest first on (program_id, id). Without these the planners pick an
 * index that only matches program_id and sort the whole program (a second on a million rows).
 * The partial ones match the lists' own conditions: archived partners and transactions are left
 * out unless asked for. Both databases use partial indexes whose predicate the query repeats.
 */
export const affiliate: VouchMigration = {
  async up(db) {
    await sql`create index partners_visible on partners (program_id, id) where status <> 'archived'`.execute(
      db,
    );
    await db.schema.createIndex('customers_program').on('customers').columns(['program_id', 'id']).execute();
    await sql`create index transactions_visible on transactions (program_id, id) where archived_at is null`.execute(
      db,
    );
  },
};
