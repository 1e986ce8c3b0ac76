import type { CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/** A migration gets the dialect because identity columns and booleans differ between the two. */
export interface VouchMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** An integer surrogate key: identity on PostgreSQL, rowid alias on SQLite. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: Dialect) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** BOOLEAN on PostgreSQL, 0/1 INTEGER on SQLite. */
export const booleanType = (dialect: Dialect) => (dialect === 'postgres' ? 'boolean' : 'integer');
