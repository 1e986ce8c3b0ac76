import { type Kysely, sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/** Each counter table, its primary key without the slot, and the indexes it carries besides. */
const tables = {
  program_counters: ['program_id', 'metric', 'day'],
  entity_counters: ['program_id', 'owner_kind', 'owner_id', 'metric'],
} as const;

/**
 * SQLite cannot change a primary key: the table is rebuilt from its own stored definition with
 * the slot column and the new key, and its indexes are recreated from theirs.
 */
async function rebuildWithSlot(db: Kysely<unknown>, table: keyof typeof tables) {
  const stored = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  const definition = stored.rows[0]?.sql;
  if (!definition) throw new Error(`${table} table not found`);
  const key = tables[table].map((column) => `"${column}"`).join(', ');
  const keyClause = new RegExp(`primary key \\(${key.replaceAll('"', '"?')}\\)`, 'i');
  if (!keyClause.test(definition)) throw new Error(`${table}: primary key not declared as expected`);
  const slotted = definition
    .replace(keyClause, `primary key (${key}, "slot")`)
    .replace(
      /^CREATE TABLE\s+("?\w+"?)\s*\(/i,
      `create table "${table}_slotted" ("slot" integer not null default 0, `,
    );
  const indexes = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(
    db,
  );
  await sql.raw(slotted).execute(db);
  const columns = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  const list = columns.rows.map((column) => `"${column.name}"`).join(', ');
  await sql.raw(`insert into "${table}_slotted" (${list}) select ${list} from "${table}"`).execute(db);
  await sql.raw(`drop table "${table}"`).execute(db);
  await sql.raw(`alter table "${table}_slotted" rename to "${table}"`).execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
}

/**
 * Figures every sale of a program or partner moves are spread over a few rows (issue 15): each
 * figure row gains a `slot`, part of its key; a write adds to one slot, a read sums them. Existing
 * figures become slot 0, where SQLite keeps writing (it has one writer, so no row is ever waited
 * on). See db/counter-slots.ts.
 */
export const counterSlots: VouchMigration = {
  async up(db, dialect) {
    for (const [table, key] of Object.entries(tables) as [keyof typeof tables, readonly string[]][]) {
      if (dialect === 'sqlite') {
        await rebuildWithSlot(db, table);
        continue;
      }
      await sql
        .raw(
          `alter table ${table} add column slot smallint not null default 0,
             drop constraint ${table}_pk,
             add constraint ${table}_pk primary key (${[...key, 'slot'].join(', ')})`,
        )
        .execute(db);
    }
  },
};
