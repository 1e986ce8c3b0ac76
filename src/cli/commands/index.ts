import type { Command } from '@commander-js/extra-typings';
import type { Run } from './command.ts';
import { addExport } from './export.ts';
import { addKeysCreate } from './keys-create.ts';
import { addKeysRevoke } from './keys-revoke.ts';
import { addMigrate } from './migrate.ts';
import { addProgramsCreate } from './programs-create.ts';
import { addProgramsList } from './programs-list.ts';
import { addSecretsRotate } from './secrets-rotate.ts';
import { addSeed } from './seed.ts';
import { addUsersCreate } from './users-create.ts';
import { addWorker } from './worker.ts';

/** Every command, in the order `vouch --help` lists them; one file each. */
export function addCommands(vouch: Command, run: Run): void {
  const programs = vouch.command('programs').description('create and list programs');
  addProgramsCreate(programs, run);
  addProgramsList(programs, run);
  const keys = vouch.command('keys').description("create and revoke programs' API keys");
  addKeysCreate(keys, run);
  addKeysRevoke(keys, run);
  const users = vouch.command('users').description('owner console users');
  addUsersCreate(users, run);
  addMigrate(vouch, run);
  addWorker(vouch, run);
  addSeed(vouch, run);
  addExport(vouch, run);
  const secrets = vouch.command('secrets').description('server key for secrets at rest');
  addSecretsRotate(secrets, run);
}
