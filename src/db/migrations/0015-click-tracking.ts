import { booleanType, type VouchMigration } from './helpers.ts';

/**
 * Click tracking and the self-referral guard (issue 12): the daily salts that make visitor hashes unlinkable once rotated,
 * the visitors counted per link in the last 24 hours (a hash, never an address), the per-day
 * figures of partners, customers and links, and the lookup of a link by key alone (`/r/{key}`).
 */
export const clickTracking: VouchMigration = {
  async up(db, dialect) {
    await db.schema
      .createTable('click_salts')
      .addColumn('day', 'text', (c) => c.primaryKey())
      .addColumn('salt', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('click_visitors')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('link_id', 'bigint', (c) => c.notNull())
      /** HMAC of address and user agent under the day's salt. */
      .addColumn('visitor', 'text', (c) => c.notNull())
      .addColumn('counted_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('click_visitors_pk', ['program_id', 'link_id', 'visitor'])
      .execute();
    await db.schema
      .createIndex('click_visitors_counted_at')
      .on('click_visitors')
      .column('counted_at')
      .execute();

    await db.schema
      .createTable('entity_counters_by_day')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'bigint', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('value_hi', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('entity_counters_by_day_pk', [
        'program_id',
        'owner_kind',
        'owner_id',
        'metric',
        'day',
      ])
      .execute();

    // The self-referral guard: such a customer is stored, and its sales earn nothing.
    await db.schema
      .alterTable('customers')
      .addColumn('self_referral', booleanType(dialect), (c) => c.notNull().defaultTo(false))
      .execute();

    // `/r/{key}` knows no program: keys are unique per program, so this index is not unique.
    await db.schema.createIndex('referral_links_key').on('referral_links').column('key').execute();
  },
};
