import { type ColumnDefinitionBuilder, sql } from 'kysely';
import { booleanType, type VouchMigration, withId } from './helpers.ts';

/**
 * The shared data model of affiliate and refer-a-friend programs: partners, referral links (of a
 * partner or of a customer), customers of both types, transactions and the rewards they produce,
 * balance credits, and per-entity counters. Modules add columns in later migrations.
 */
export const referralDomain: VouchMigration = {
  async up(db, dialect) {
    const bool = booleanType(dialect);
    const programId = (c: ColumnDefinitionBuilder) =>
      c.notNull().references('programs.id').onDelete('cascade');

    await withId(db.schema.createTable('partners'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('surname', 'text')
      .addColumn('password_hash', 'text')
      .addColumn('tos', bool, (c) => c.notNull().defaultTo(false))
      .addColumn('approved', bool, (c) => c.notNull().defaultTo(true))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('status_before_archive', 'text')
      .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('referring_partner_id', 'bigint', (c) => c.references('partners.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('partners_program_public_id', ['program_id', 'public_id'])
      .addUniqueConstraint('partners_program_email', ['program_id', 'email'])
      .execute();
    await db.schema
      .createIndex('partners_program_status')
      .on('partners')
      .columns(['program_id', 'status', 'id'])
      .execute();
    await db.schema
      .createIndex('partners_referring')
      .on('partners')
      .columns(['program_id', 'referring_partner_id'])
      .execute();

    await withId(db.schema.createTable('link_domains'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('domain', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('link_domains_program_domain', ['program_id', 'domain'])
      .execute();

    await withId(db.schema.createTable('customers'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('email', 'text')
      .addColumn('name', 'text')
      .addColumn('surname', 'text')
      .addColumn('tos', bool, (c) => c.notNull().defaultTo(false))
      .addColumn('approved', bool, (c) => c.notNull().defaultTo(true))
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
      // Affiliate programs: the partner the customer belongs to, and the link that brought it.
      .addColumn('partner_id', 'bigint', (c) => c.references('partners.id').onDelete('set null'))
      .addColumn('referral_link_id', 'bigint')
      // Refer-a-friend programs: the customer who referred this one.
      .addColumn('referring_customer_id', 'bigint', (c) => c.references('customers.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .addUniqueConstraint('customers_program_public_id', ['program_id', 'public_id'])
      .addUniqueConstraint('customers_program_key', ['program_id', 'key'])
      .addUniqueConstraint('customers_program_email', ['program_id', 'email'])
      .execute();
    await db.schema
      .createIndex('customers_program_status')
      .on('customers')
      .columns(['program_id', 'status', 'id'])
      .execute();
    await db.schema
      .createIndex('customers_partner')
      .on('customers')
      .columns(['program_id', 'partner_id', 'id'])
      .execute();
    await db.schema
      .createIndex('customers_referring')
      .on('customers')
      .columns(['program_id', 'referring_customer_id', 'id'])
      .execute();

    await withId(db.schema.createTable('referral_links'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('key', 'text', (c) => c.notNull())
      // Exactly one owner: a partner (affiliate) or a customer (refer-a-friend).
      .addColumn('partner_id', 'bigint', (c) => c.references('partners.id').onDelete('cascade'))
      .addColumn('customer_id', 'bigint', (c) => c.references('customers.id').onDelete('cascade'))
      .addColumn('is_default', bool, (c) => c.notNull())
      .addColumn('is_additional', bool, (c) => c.notNull().defaultTo(false))
      .addColumn('domain_id', 'bigint', (c) => c.references('link_domains.id').onDelete('set null'))
      .addColumn('direct_tracking', bool, (c) => c.notNull().defaultTo(false))
      .addColumn('direct_tracking_redirect', bool, (c) => c.notNull().defaultTo(false))
      .addColumn('direct_tracking_redirect_url', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('referral_links_program_key', ['program_id', 'key'])
      .execute();
    await db.schema
      .createIndex('referral_links_partner')
      .on('referral_links')
      .columns(['program_id', 'partner_id', 'id'])
      .execute();
    await db.schema
      .createIndex('referral_links_customer')
      .on('referral_links')
      .columns(['program_id', 'customer_id', 'id'])
      .execute();

    await withId(db.schema.createTable('transactions'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
      .addColumn('partner_id', 'bigint', (c) => c.references('partners.id').onDelete('set null'))
      .addColumn('referring_customer_id', 'bigint', (c) => c.references('customers.id').onDelete('set null'))
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('amount_units', 'text')
      .addColumn('is_currency', bool, (c) => c.notNull())
      .addColumn('credit', bool, (c) => c.notNull())
      .addColumn('rewarded', bool, (c) => c.notNull())
      .addColumn('rewardable', bool, (c) => c.notNull())
      .addColumn('product_id', 'text')
      .addColumn('product_type', 'text')
      // Digest of the create request, for the idempotent replay rule (contract §6).
      .addColumn('request_digest', 'text', (c) => c.notNull())
      .addColumn('archived_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .addUniqueConstraint('transactions_program_key', ['program_id', 'key'])
      .execute();
    await db.schema
      .createIndex('transactions_customer')
      .on('transactions')
      .columns(['program_id', 'customer_id', 'id'])
      .execute();
    await db.schema
      .createIndex('transactions_partner')
      .on('transactions')
      .columns(['program_id', 'partner_id', 'id'])
      .execute();
    await db.schema
      .createIndex('transactions_referrer')
      .on('transactions')
      .columns(['program_id', 'referring_customer_id', 'id'])
      .execute();

    await withId(db.schema.createTable('rewards'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('transaction_id', 'bigint', (c) =>
        c.notNull().references('transactions.id').onDelete('cascade'),
      )
      // Who earns it: a partner (commission, tier two) or a customer (referrer or buyer).
      .addColumn('partner_id', 'bigint', (c) => c.references('partners.id').onDelete('cascade'))
      .addColumn('customer_id', 'bigint', (c) => c.references('customers.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('amount_units', 'text', (c) => c.notNull())
      .addColumn('is_currency', bool, (c) => c.notNull())
      .addColumn('credit', bool, (c) => c.notNull())
      .addColumn('commission_type', 'text', (c) => c.notNull())
      .addColumn('commission_value', 'text', (c) => c.notNull())
      .addColumn('product_id', 'text')
      .addColumn('product_type', 'text')
      // When a reward in its hold period becomes `ok`.
      .addColumn('available_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .execute();
    await db.schema
      .createIndex('rewards_transaction')
      .on('rewards')
      .columns(['program_id', 'transaction_id'])
      .execute();
    await db.schema
      .createIndex('rewards_partner')
      .on('rewards')
      .columns(['program_id', 'partner_id', 'id'])
      .execute();
    await db.schema
      .createIndex('rewards_customer')
      .on('rewards')
      .columns(['program_id', 'customer_id', 'id'])
      .execute();
    await sql`create index rewards_in_review on rewards (available_at) where status = 'review_period'`.execute(
      db,
    );

    await withId(db.schema.createTable('balance_credits'), dialect)
      .addColumn('program_id', 'bigint', programId)
      .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('amount_units', 'text', (c) => c.notNull())
      .addColumn('is_currency', bool, (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('balance_credits_customer')
      .on('balance_credits')
      .columns(['program_id', 'customer_id', 'id'])
      .execute();

    await db.schema
      .createTable('entity_counters')
      .addColumn('program_id', 'bigint', programId)
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'bigint', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('entity_counters_pk', ['program_id', 'owner_kind', 'owner_id', 'metric'])
      .execute();
  },
};
