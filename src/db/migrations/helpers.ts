import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
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

/**
 * SQLite cannot change a column's constraints: the table is rebuilt from its own stored
 * definition, changed by `change` (which must change it), keeping every row and every index other
 * migrations added. Run inside the migration's transaction.
 */
export async function rebuildSqliteTable(
  db: Kysely<unknown>,
  name: string,
  change: (definition: string) => string,
) {
  const table = await sql<{
    sql: string;
  }>`select sql from sqlite_master where type = 'table' and name = ${name}`.execute(db);
  const definition = table.rows[0]?.sql;
  if (!definition) throw new Error(`${name} table not found`);
  const changed = change(definition);
  if (changed === definition) throw new Error(`${name} is not declared as expected`);
  const indexes = await sql<{
    sql: string;
  }>`select sql from sqlite_master where type = 'index' and tbl_name = ${name} and sql is not null`.execute(
    db,
  );
  const rebuilt = `${name}_rebuilt`;
  await sql
    .raw(
      changed.replace(new RegExp(`^CREATE TABLE\\s+("${name}"|${name})`, 'i'), `create table "${rebuilt}"`),
    )
    .execute(db);
  await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(name)}`.execute(db);
  await sql`drop table ${sql.table(name)}`.execute(db);
  await sql`alter table ${sql.table(rebuilt)} rename to ${sql.table(name)}`.execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
}
