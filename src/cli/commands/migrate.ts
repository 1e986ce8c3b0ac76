import type { Command } from '@commander-js/extra-typings';
import type { Run } from './command.ts';

export function addMigrate(vouch: Command, run: Run): void {
  vouch
    .command('migrate')
    .description('bring the database schema up to date (every command does it first)')
    .action(() =>
      run(async (deps, migrated) => ({
        database: deps.database.dialect,
        applied: migrated,
        status: 'up to date',
      })),
    );
}
