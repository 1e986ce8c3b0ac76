import type { Command } from './command.ts';
import { keysCreate } from './keys-create.ts';
import { keysRevoke } from './keys-revoke.ts';
import { migrate } from './migrate.ts';
import { programsCreate } from './programs-create.ts';
import { programsList } from './programs-list.ts';
import { secretsRotate } from './secrets-rotate.ts';
import { seed } from './seed.ts';
import { worker } from './worker.ts';

export const commands: Command[] = [
  programsCreate,
  programsList,
  keysCreate,
  keysRevoke,
  migrate,
  worker,
  seed,
  secretsRotate,
];
