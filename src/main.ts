import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { RECOMMENDED_HASH_COST } from './core/passwords.ts';
import { systemClock } from './core/time.ts';
import { openDatabase } from './db/database.ts';
import { migrateOrThrow } from './db/migrate.ts';
import { assembleDeps } from './deps.ts';
import { createLogger } from './logging.ts';
import { warmUpVerifiers } from './modules/integrations/integrations.service.ts';
import { sealWebhookSecrets } from './modules/webhooks/webhooks.service.ts';
import { databaseFailure, listenFailure } from './startup-errors.ts';

/** The API process: config → database → migrations → app → listen; SIGTERM closes gracefully. */
async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`vouch: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
    });
    const applied = await migrateOrThrow(database);
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
  } catch (error) {
    fail(databaseFailure(config.databaseUrl, error));
  }

  const app = await buildApp(assembleDeps({ database, clock: systemClock, log, config }));
  try {
    const sealed = await sealWebhookSecrets(app.deps);
    if (sealed > 0) log.info({ sealed }, 'webhook secrets sealed with the server key');
  } catch (error) {
    fail(`SECRET_KEY: ${String((error as Error)?.message ?? error).split('\n')[0]}`);
  }
  // Listen first: workers start only once the port is ours, so a failed start delivers nothing.
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => {});
    await database.close().catch(() => {});
    fail(listenFailure(config.host, config.port, error));
  }
  const workers = await startWorkers(app.deps);
  warmUpVerifiers().catch((error: unknown) =>
    log.error({ err: error }, "the payment processors' libraries failed to load"),
  );
  log.info({ url: `http://${config.host}:${config.port}`, database: database.dialect }, 'vouch listening');
  // Without a token the admin routes answer 404, which looks like a wrong URL from outside.
  if (!config.adminToken) log.warn('admin API disabled: set ADMIN_TOKEN');
  if (config.passwordHashing.N < 2 ** RECOMMENDED_HASH_COST)
    log.warn(
      { cost: Math.log2(config.passwordHashing.N), recommended: RECOMMENDED_HASH_COST },
      'PASSWORD_HASH_COST is below the recommended cost: password hashes are weaker than OWASP advises',
    );

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
}

/** A start-up failure: one line naming the variable and the cause, and a non-zero exit. */
function fail(line: string): never {
  console.error(`vouch: ${line}`);
  process.exit(1);
}

/** Background loops (webhook and e-mail delivery) that run beside the API unless WORKER=off. */
async function startWorkers(deps: Parameters<typeof buildApp>[0]): Promise<{ stop(): Promise<void> }> {
  if (!deps.config.runWorker) return { stop: async () => {} };
  const { startWorker } = await import('./worker.ts');
  return startWorker(deps);
}

main().catch((error) => {
  console.error(`vouch: start-up failed: ${String(error?.message ?? error).split('\n')[0]}`);
  process.exit(1);
});
