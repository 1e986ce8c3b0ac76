import { readFileSync } from 'node:fs';
import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from './cli/commands/command.ts';
import { addCommands } from './cli/commands/index.ts';
import { runWithDatabase } from './cli/run.ts';
import { ConfigError } from './config-error.ts';

/** Exit codes of sysexits.h: the command was used wrongly; the configuration is wrong. */
const EXIT_USAGE = 64;
const EXIT_CONFIG = 78;

function packageVersion(): string {
  const manifest: { version?: unknown } = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  );
  return String(manifest.version);
}

/** The admin CLI: the same service functions as the admin API, one command per file. */
function cli(): Command {
  const vouch = new Command('vouch')
    .description('Vouch admin CLI: the same services as the admin API. Output is JSON.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'print this usage')
    .helpCommand('help [command]', 'print the usage of a command')
    // Set before the commands are added: each inherits them.
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({
      // The suggestion for a mistyped option stays on the error's line.
      outputError: (text, write) => write(text.replace('\n(Did you mean', ' (did you mean')),
    })
    .addHelpText(
      'after',
      `
Environment: DATABASE_URL as for the server (default sqlite:./data/vouch.db); SECRET_KEY with
PostgreSQL. Every command brings the database schema up to date first.
Exit codes: 0 done, 1 failed, 64 wrong usage, 78 bad configuration.`,
    );
  addCommands(vouch, runWithDatabase);
  return vouch;
}

async function main(argv: string[]): Promise<number> {
  const vouch = cli();
  if (argv.length === 0) {
    vouch.outputHelp();
    return 0;
  }
  let active: CommandUnknownOpts = vouch;
  vouch.hook('preAction', (_root, command) => {
    active = command;
  });
  try {
    await vouch.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // Help and version end in a CommanderError with exit code 0; parse errors were printed already.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n\n${active.helpInformation()}`);
      return EXIT_USAGE;
    }
    process.stderr.write(`vouch: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof ConfigError ? EXIT_CONFIG : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
