import { sql } from 'kysely';
import { rebuildSqliteTable, type VouchMigration } from './helpers.ts';

/**
 * Payouts at scale (issue 13). A payout takes commissions of sales that are not archived: the few
 * archived sales get a partial index, so "not archived" is one small set, not a lookup per
 * commission. A payout item outlives its partner: deleting a partner leaves the items of paid and
 * cancelled payouts (history: their totals keep adding up) with no partner, instead of deleting
 * them; pending payouts drop the partner's item and total in the delete itself.
 */
export const payoutSpeed: VouchMigration = {
  async up(db, dialect) {
    await sql`create index transactions_archived on transactions (program_id, id) where archived_at is not null`.execute(
      db,
    );
    if (dialect === 'postgres') {
      await sql`alter table payout_items alter column partner_id drop not null`.execute(db);
      await sql`alter table payout_items drop constraint payout_items_partner_id_fkey`.execute(db);
      await sql`alter table payout_items add constraint payout_items_partner_id_fkey foreign key (partner_id) references partners (id) on delete set null`.execute(
        db,
      );
    } else {
      await rebuildSqliteTable(db, 'payout_items', (definition) =>
        definition.replace(
          /("partner_id"\s+bigint)\s+not null(\s+references\s+"partners"\s*\("id"\))\s+on delete cascade/i,
          '$1$2 on delete set null',
        ),
      );
    }
  },
};
