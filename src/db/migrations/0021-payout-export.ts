import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Payout exports read one table (issue 13). A payout item keeps its partner's id, e-mail and
 * name as they were when the payout was made, beside the payout details it kept already, so an
 * export of tens of thousands of partners reads the items in order instead of looking every
 * partner up (that lookup was two thirds of an export's time). Items made before are filled in
 * from their partners.
 */
export const payoutExport: VouchMigration = {
  async up(db) {
    for (const column of ['partner_public_id', 'partner_email', 'partner_name', 'partner_surname'])
      await db.schema.alterTable('payout_items').addColumn(column, 'text').execute();
    await sql`
      update payout_items set
        partner_public_id = (select public_id from partners where partners.id = payout_items.partner_id),
        partner_email = (select email from partners where partners.id = payout_items.partner_id),
        partner_name = (select name from partners where partners.id = payout_items.partner_id),
        partner_surname = (select surname from partners where partners.id = payout_items.partner_id)
      where partner_id is not null`.execute(db);
  },
};
