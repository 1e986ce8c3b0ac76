import { pino } from 'pino';
import { commands } from './cli/commands/index.ts';
import { ConfigError, loadConfig } from './config.ts';
import type { Deps } from './context.ts';
import { systemClock } from './core/time.ts';
import { openDatabase } from './db/database.ts';
import { migrateOrThrow } from './db/migrate.ts';
import { assembleDeps, closeDeps } from './deps.ts';

const usage = `vouch — admin CLI

  vouch programs create --name NAME --type affiliate|referral|newsletter [--website URL]
  vouch programs list [--page N] [--limit N]
  vouch keys create --program ID [--name NAME] [--scope full|read]
  vouch keys revoke KEY_ID
  vouch migrate
  vouch worker [--once]
  vouch secrets rotate      seal every secret at rest with a new server key (see README)
  vouch seed --partners N --customers N --transactions N [--program ID]

Reads DATABASE_URL like the server (default sqlite:./data/vouch.db). Output is JSON.`;

/** Admin CLI: the same service functions as the admin API, one command per file. */
async function main(argv: string[]) {
  const [group, action, ...rest] = argv;
  const name = action && !action.startsWith('-') ? `${group} ${action}` : group;
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.log(usage);
    process.exit(group && group !== 'help' && group !== '--help' ? 64 : 0);
  }
  const args = name === group ? [action, ...rest].filter((a): a is string => a !== undefined) : rest;

  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl, { poolSize: 2 });
  const deps: Deps = assembleDeps({ database, clock: systemClock, log: pino({ level: 'warn' }), config });
  try {
    await migrateOrThrow(database);
    const result = await command.run(deps, args);
    if (result !== undefined) console.log(JSON.stringify(result, null, 2));
  } finally {
    closeDeps(deps);
    await database.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`vouch: ${error.message}`);
  else console.error(`vouch: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
