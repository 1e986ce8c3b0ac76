import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 26: every sale keeps its buyer's key (`customer_key`), so the transactions export writes
 * it without an index look-up of the buyer per row (ADR 0142). A customer's new key is written
 * onto its sales in the same transaction (transactions.service.ts `renameBuyerOfSales`).
 *
 * SQLite adds a NOT NULL column only with a default; PostgreSQL drops its default once the
 * existing rows are filled, so a write that forgets the column fails there (the TypeScript table
 * type already requires it).
 */
export const saleCustomerKeys: VouchMigration = {
  async up(db, dialect) {
    await db.schema
      .alterTable('transactions')
      .addColumn('customer_key', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    if (dialect === 'postgres') {
      await sql`update transactions set customer_key = customers.key from customers
        where customers.id = transactions.customer_id`.execute(db);
      await sql`alter table transactions alter column customer_key drop default`.execute(db);
    } else {
      await sql`update transactions set customer_key =
        (select customers.key from customers where customers.id = transactions.customer_id)`.execute(db);
    }
  },
};
