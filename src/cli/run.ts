import type { Run } from './commands/command.ts';

/**
 * The runner every command's action calls: configuration, database, migrations, the same deps as
 * the API, then the command's work; its result is printed as JSON. The application is imported
 * here, not at the top of the CLI, so `--help` and `--version` answer without loading it.
 */
export const runWithDatabase: Run = async (work) => {
  const [
    { createLogger },
    { loadConfig },
    { systemClock },
    { openDatabase },
    { migrateOrThrow },
    { assembleDeps, closeDeps },
  ] = await Promise.all([
    import('../logging.ts'),
    import('../config.ts'),
    import('../core/time.ts'),
    import('../db/database.ts'),
    import('../db/migrate.ts'),
    import('../deps.ts'),
  ]);
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl, { poolSize: 2 });
  const deps = assembleDeps({ database, clock: systemClock, log: createLogger('warn'), config });
  try {
    const migrated = await migrateOrThrow(database);
    const result = await work(deps, migrated);
    if (result !== undefined) console.log(JSON.stringify(result, null, 2));
  } finally {
    closeDeps(deps);
    await database.close();
  }
};
