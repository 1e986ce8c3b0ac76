import type { VouchMigration } from './helpers.ts';

/**
 * Issue 14's remainder.
 *
 * `portal_host`: an affiliate program's own host name for its partner portal. A column of its own
 * (not in the settings JSON) because every request on a portal host looks its program up by it,
 * and two programs may not claim one host: the unique index answers both. It is the one unique key
 * not led by `program_id`: a host is global by nature, like a program's public id.
 *
 * A partner's payouts, newest first, for the portal's dashboard: their items by partner.
 */
export const portalHost: VouchMigration = {
  async up(db) {
    await db.schema.alterTable('programs').addColumn('portal_host', 'text').execute();
    await db.schema
      .createIndex('programs_portal_host')
      .unique()
      .on('programs')
      .column('portal_host')
      .execute();
    await db.schema
      .createIndex('payout_items_partner')
      .on('payout_items')
      .columns(['program_id', 'partner_id', 'payout_id'])
      .execute();
  },
};
