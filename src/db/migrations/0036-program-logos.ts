import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Program logos (issue 30): the uploaded file in its own table (one per program, read only when
 * served), and its digest on the program row, so every page that reads the program knows the
 * logo's URL without a second read.
 */
export const programLogos: VouchMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('programs').addColumn('logo_digest', 'text').execute();
    await db.schema
      .createTable('program_logos')
      .addColumn('program_id', 'bigint', (c) => c.primaryKey().references('programs.id').onDelete('cascade'))
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('body', dialect === 'postgres' ? sql`bytea` : sql`blob`, (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
