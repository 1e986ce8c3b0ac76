import { pino } from 'pino';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { systemClock } from './core/time.ts';
import { openDatabase } from './db/database.ts';
import { migrateOrThrow } from './db/migrate.ts';
import { assembleDeps } from './deps.ts';

/** The API process: config → database → migrations → app → listen; SIGTERM closes gracefully. */
async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`vouch: invalid configuration: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const log = pino({ level: config.logLevel });
  const database = await openDatabase(config.databaseUrl);
  const applied = await migrateOrThrow(database);
  if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');

  const app = await buildApp(assembleDeps({ database, clock: systemClock, log, config }));
  const workers = await startWorkers(app.deps);

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    await app.close();
    await workers.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  log.info({ url: `http://${config.host}:${config.port}`, database: database.dialect }, 'vouch listening');
}

/** Background loops (webhook and e-mail delivery) that run beside the API unless WORKER=off. */
async function startWorkers(deps: Parameters<typeof buildApp>[0]): Promise<{ stop(): Promise<void> }> {
  if (!deps.config.runWorker) return { stop: async () => {} };
  const { startWorker } = await import('./worker.ts');
  return startWorker(deps);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
