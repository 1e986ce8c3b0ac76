import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { rebuildSqliteTable, type VouchMigration, withId } from './helpers.ts';

/**
 * Commissions as a resource, refunds and payouts. A commission is a row of `rewards` (an
 * affiliate program's rewards are its commissions); manual commissions and clawbacks have no
 * sale, so `rewards.transaction_id` becomes nullable. SQLite cannot drop a NOT NULL: the table is
 * rebuilt from its own stored definition (so columns and indexes other migrations added survive).
 */
async function rebuildRewardsWithNullableSale(db: Kysely<unknown>) {
  await rebuildSqliteTable(db, 'rewards', (definition) =>
    definition.replace(/("transaction_id"\s+bigint)\s+not null/i, '$1'),
  );
}

export const commissionsPayouts: VouchMigration = {
  async up(db, dialect) {
    const programId = (c: ColumnDefinitionBuilder) =>
      c.notNull().references('programs.id').onDelete('cascade');

    if (dialect === 'postgres')
      await sql`alter table rewards alter column transaction_id drop not null`.execute(db);
    else await rebuildRewardsWithNullableSale(db);

    await withId(db.schema.createTable('payouts'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('total', 'bigint', (c) => c.notNull())
      .addColumn('partner_count', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('paid_at', 'text')
      .addColumn('cancelled_at', 'text')
      .addUniqueConstraint('payouts_program_public_id', ['program_id', 'public_id'])
      .execute();
    await db.schema
      .createIndex('payouts_program_created')
      .on('payouts')
      .columns(['program_id', 'created_at', 'id'])
      .execute();

    await withId(db.schema.createTable('payout_items'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('payout_id', 'bigint', (c) => c.notNull().references('payouts.id').onDelete('cascade'))
      .addColumn('partner_id', 'bigint', (c) => c.notNull().references('partners.id').onDelete('cascade'))
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('commission_count', 'integer', (c) => c.notNull())
      .addColumn('payout_method', 'text')
      /** JSON: the partner's payout details when the batch was made (what the export pays to). */
      .addColumn('payout_details', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema
      .createIndex('payout_items_payout')
      .on('payout_items')
      .columns(['program_id', 'payout_id', 'id'])
      .execute();

    await db.schema
      .alterTable('rewards')
      .addColumn('payout_id', 'bigint', (c) => c.references('payouts.id').onDelete('set null'))
      .execute();
    for (const column of ['approved_at', 'paid_at', 'reason', 'description', 'updated_at'])
      await db.schema.alterTable('rewards').addColumn(column, 'text').execute();
    // The amount a commission had before refunds reduced it (null: never reduced).
    await db.schema.alterTable('rewards').addColumn('original_amount', 'bigint').execute();
    await db.schema.alterTable('transactions').addColumn('refunded_amount', 'bigint').execute();
    // A partner's payout method and its fields (JSON), never shown in list entries.
    await db.schema.alterTable('partners').addColumn('payout_method', 'text').execute();
    await db.schema.alterTable('partners').addColumn('payout_details', 'text').execute();

    // The commission list: all, by status, by partner, by sale, in creation order; a payout's rows.
    await db.schema
      .createIndex('rewards_created')
      .on('rewards')
      .columns(['program_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('rewards_status_created')
      .on('rewards')
      .columns(['program_id', 'status', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('rewards_partner_created')
      .on('rewards')
      .columns(['program_id', 'partner_id', 'created_at', 'id'])
      .execute();
    // Due commissions of one program, found without walking other programs' (settling on read).
    await sql`create index rewards_due on rewards (program_id, available_at) where status = 'review_period'`.execute(
      db,
    );
    await db.schema
      .createIndex('rewards_payout')
      .on('rewards')
      .columns(['program_id', 'payout_id'])
      .execute();
  },
};
