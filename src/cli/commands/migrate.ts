import { migrateOrThrow } from '../../db/migrate.ts';
import type { Command } from './command.ts';

export const migrate: Command = {
  name: 'migrate',
  // cli.ts migrates before every command; this one reports the result.
  async run(deps) {
    const applied = await migrateOrThrow(deps.database);
    return { database: deps.database.dialect, applied, status: 'up to date' };
  },
};
