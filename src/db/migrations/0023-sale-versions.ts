import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 15: a PostgreSQL sale without a transaction of its own.
 *
 * A sale is decided from what its buyer's figures were (first sale, purchases so far, rewards
 * given). Instead of holding the buyer's row locked from that read to the commit (BEGIN, five
 * statements, COMMIT), a sale reads the buyer's `sale_version` with the rest and writes everything
 * in one statement that first moves the version on, only if it is still the one read; every
 * other writer of a buyer's sale figures moves it on too. When another write came in between,
 * `vouch_assert_current` aborts the statement as a serialization failure (nothing is written)
 * and the sale is decided again. SQLite has one writer and never needs it.
 */
export const saleVersions: VouchMigration = {
  async up(db, dialect) {
    await db.schema
      .alterTable('customers')
      .addColumn('sale_version', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    if (dialect === 'postgres') {
      await sql`
        create function vouch_assert_current(updated bigint) returns bigint language plpgsql as $$
        begin
          if updated = 0 then
            raise exception 'the buyer changed since the sale read it' using errcode = '40001';
          end if;
          return updated;
        end
        $$`.execute(db);
    }
  },
};
