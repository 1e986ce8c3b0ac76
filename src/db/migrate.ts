import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from 'kysely';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';

// Any constant: every Vouch instance agrees on it, nothing else takes it.
const MIGRATION_LOCK_KEY = 7_215_006_001;

function provider(database: Database) {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return Object.fromEntries(
        Object.entries(migrations).map(([name, migration]) => [
          name,
          { up: (db: Kysely<unknown>) => migration.up(db, database.dialect) },
        ]),
      );
    },
  };
}

/**
 * Brings the schema to the latest migration. Safe when several instances start at once against
 * one PostgreSQL: they queue on a session advisory lock, and the later ones find nothing to do.
 */
export async function migrateToLatest(database: Database): Promise<MigrationResultSet> {
  if (database.dialect === 'sqlite') {
    return new Migrator({
      db: database.db,
      provider: provider(database),
      allowUnorderedMigrations: true,
    }).migrateToLatest();
  }
  return database.db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
    // A migration may rewrite a large table: DATABASE_STATEMENT_TIMEOUT_MS is for requests.
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      const migrator = new Migrator({
        db: connection,
        provider: provider(database),
        // Migrations are independent of each other; one merged with a lower number still runs.
        allowUnorderedMigrations: true,
        // Kysely looks for its tables in every schema unless told which one is ours.
        ...(database.schema ? { migrationTableSchema: database.schema } : {}),
      });
      return await migrateRetryingIntrospection(migrator);
    } finally {
      await sql`reset statement_timeout`.execute(connection);
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}

/**
 * Kysely's introspection lists the tables of every schema of the database; when another schema is
 * dropped meanwhile (a neighbour's test run, a tenant removed) the listing fails with "schema or
 * relation does not exist", or "column … does not exist" when the drop lands between the catalog
 * read and its serial-sequence lookup. Nothing was applied then, so trying again is safe.
 */
async function migrateRetryingIntrospection(migrator: Migrator): Promise<MigrationResultSet> {
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    const code = (result.error as { code?: string } | undefined)?.code;
    const vanished = code === '3F000' || code === '42P01' || code === '42703';
    if (!vanished || attempt === 5 || result.results?.some((r) => r.status === 'Success')) return result;
  }
}

export async function migrateOrThrow(database: Database): Promise<string[]> {
  const { error, results } = await migrateToLatest(database);
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
