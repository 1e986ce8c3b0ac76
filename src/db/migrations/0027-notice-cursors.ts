import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Welcome and new-commission e-mails are queued by the worker's notices pass, which walks new
 * partners and commissions in creation order from a cursor per program and kind. Programs that
 * exist when this runs start at this moment: an upgrade announces nothing that happened before it.
 */
export const noticeCursors: VouchMigration = {
  async up(db, dialect) {
    const idType = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('notice_cursors')
      .addColumn('program_id', idType, (c) => c.notNull().references('programs.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_id', idType, (c) => c.notNull())
      .addPrimaryKeyConstraint('notice_cursors_pk', ['program_id', 'kind'])
      .execute();
    // Stored timestamps have six decimals (core/time.ts).
    const now = new Date().toISOString().replace('Z', '000Z');
    for (const kind of ['partner_welcome', 'new_commissions'])
      await sql`insert into notice_cursors (program_id, kind, created_at, last_id)
        select id, ${kind}, ${now}, 0 from programs where type = 'affiliate'`.execute(db);
  },
};
