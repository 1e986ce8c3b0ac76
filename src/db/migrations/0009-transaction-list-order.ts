import type { VouchMigration } from './helpers.ts';

/**
 * Transaction lists order by creation time (contract §4.19): `(created_at, id)`, newest first
 * by default, unfiltered or filtered by buyer, partner or referrer. Each index serves one list in
 * both directions; the older indexes by id served the order by id they replace.
 */
export const transactionListOrder: VouchMigration = {
  async up(db) {
    await db.schema
      .createIndex('transactions_created')
      .on('transactions')
      .columns(['program_id', 'created_at', 'id'])
      .execute();
    for (const [name, column] of [
      ['transactions_customer', 'customer_id'],
      ['transactions_partner', 'partner_id'],
      ['transactions_referrer', 'referring_customer_id'],
    ] as const) {
      await db.schema.dropIndex(name).execute();
      await db.schema
        .createIndex(name)
        .on('transactions')
        .columns(['program_id', column, 'created_at', 'id'])
        .execute();
    }
  },
};
