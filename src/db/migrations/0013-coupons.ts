import { sql } from 'kysely';
import { booleanType, type VouchMigration, withId } from './helpers.ts';

/**
 * Coupons, their promotion codes and the codes' redemptions. A deleted coupon keeps its row
 * (`deleted_at`, so its codes are refused with a reason) and frees its `uuid_code`: uniqueness
 * and the list index cover live coupons only. Codes are unique per program case-insensitively
 * (`code_lower`), since a buyer types them. A redemption's `transaction_key` is unique per code
 * (NULLs are distinct on both databases: redemptions without a key never clash).
 */
export const coupons: VouchMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('coupons'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('uuid_code', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('active', booleanType(dialect), (c) => c.notNull())
      .addColumn('discount_type', 'text', (c) => c.notNull())
      .addColumn('discount_amount', 'bigint', (c) => c.notNull())
      .addColumn('duration_type', 'text', (c) => c.notNull())
      .addColumn('duration_value', 'integer')
      .addColumn('date_status', booleanType(dialect), (c) => c.notNull())
      .addColumn('date_value', 'text')
      .addColumn('times_status', booleanType(dialect), (c) => c.notNull())
      .addColumn('times_value', 'integer')
      .addColumn('times_redeemed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .execute();
    await sql`create unique index coupons_program_uuid on coupons (program_id, uuid_code) where deleted_at is null`.execute(
      db,
    );
    await sql`create index coupons_program_created on coupons (program_id, created_at, id) where deleted_at is null`.execute(
      db,
    );

    await withId(db.schema.createTable('promotion_codes'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('coupon_id', 'bigint', (c) => c.notNull().references('coupons.id').onDelete('cascade'))
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('code_lower', 'text', (c) => c.notNull())
      .addColumn('first_time_order', booleanType(dialect), (c) => c.notNull())
      .addColumn('limit_partners', booleanType(dialect), (c) => c.notNull())
      .addColumn('partners', 'text', (c) => c.notNull())
      .addColumn('limit_customers', booleanType(dialect), (c) => c.notNull())
      .addColumn('customers', 'text', (c) => c.notNull())
      .addColumn('minimum_order_status', booleanType(dialect), (c) => c.notNull())
      .addColumn('minimum_order_value', 'integer')
      .addColumn('expiration_status', booleanType(dialect), (c) => c.notNull())
      .addColumn('expiration_value', 'text')
      .addColumn('times_status', booleanType(dialect), (c) => c.notNull())
      .addColumn('times_value', 'integer')
      .addColumn('times_redeemed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('promotion_codes_program_code', ['program_id', 'code_lower'])
      .execute();
    await db.schema
      .createIndex('promotion_codes_program_created')
      .on('promotion_codes')
      .columns(['program_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('promotion_codes_coupon')
      .on('promotion_codes')
      .columns(['program_id', 'coupon_id', 'created_at', 'id'])
      .execute();

    await withId(db.schema.createTable('promotion_code_redemptions'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('promotion_code_id', 'bigint', (c) =>
        c.notNull().references('promotion_codes.id').onDelete('cascade'),
      )
      .addColumn('transaction_key', 'text')
      .addColumn('redeemed_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('promotion_code_redemptions_key', [
        'program_id',
        'promotion_code_id',
        'transaction_key',
      ])
      .execute();
    await db.schema
      .createIndex('promotion_code_redemptions_code')
      .on('promotion_code_redemptions')
      .columns(['program_id', 'promotion_code_id', 'id'])
      .execute();
  },
};
