import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Every list ordered by creation orders by `(created_at, id)` (contract §4.19), in both
 * directions: an index per list, leading with program_id, so a page is a walk of the index and
 * never a sort. Each index that ordered one of these lists by id is replaced by its
 * `(…, created_at, id)` form, which still serves the lookups by its leading columns.
 * Transactions have their own migration.
 */
export const creationOrder: VouchMigration = {
  async up(db) {
    const replace = async (name: string, table: string, columns: string[]) => {
      await db.schema.dropIndex(name).ifExists().execute();
      await db.schema.createIndex(name).on(table).columns(columns).execute();
    };

    // Partners: the plain list leaves archived partners out (a literal, so the planners match the
    // partial index); filtered by status it walks the status index.
    await db.schema.dropIndex('partners_visible').execute();
    await sql`create index partners_visible on partners (program_id, created_at, id) where status <> 'archived'`.execute(
      db,
    );
    await replace('partners_program_status', 'partners', ['program_id', 'status', 'created_at', 'id']);

    // Customers of both program types: all, by status, a partner's, a referrer's referrals.
    await replace('customers_program', 'customers', ['program_id', 'created_at', 'id']);
    await replace('customers_program_status', 'customers', ['program_id', 'status', 'created_at', 'id']);
    await replace('customers_partner', 'customers', ['program_id', 'partner_id', 'created_at', 'id']);
    await replace('customers_referring', 'customers', [
      'program_id',
      'referring_customer_id',
      'created_at',
      'id',
    ]);

    // Referral links: the search over every link, and one owner's links.
    await db.schema
      .createIndex('referral_links_created')
      .on('referral_links')
      .columns(['program_id', 'created_at', 'id'])
      .execute();
    await replace('referral_links_partner', 'referral_links', [
      'program_id',
      'partner_id',
      'created_at',
      'id',
    ]);
    await replace('referral_links_customer', 'referral_links', [
      'program_id',
      'customer_id',
      'created_at',
      'id',
    ]);

    // Webhooks, a webhook's delivery attempts, API keys.
    await replace('webhooks_program_created', 'webhooks', ['program_id', 'created_at', 'id']);
    await replace('webhook_attempts_webhook', 'webhook_attempts', [
      'program_id',
      'webhook_id',
      'created_at',
      'id',
    ]);
    await replace('api_keys_program', 'api_keys', ['program_id', 'created_at', 'id']);

    // Programs are the tenants themselves: the admin list has no program to lead with.
    await db.schema.createIndex('programs_created').on('programs').columns(['created_at', 'id']).execute();
  },
};
