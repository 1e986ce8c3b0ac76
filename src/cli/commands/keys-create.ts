import { type Command, Option } from '@commander-js/extra-typings';
import { type Run, required } from './command.ts';

export function addKeysCreate(keys: Command, run: Run): void {
  keys
    .command('create')
    .description('create an API key for a program (the token is shown once)')
    .option('--program <id>', "the program's id or public id (required)")
    .option('--name <name>', "the key's name (default: '<scope> key')")
    .addOption(
      new Option('--scope <scope>', 'full: every endpoint; read: GET only')
        .choices(['full', 'read'] as const)
        .default('full' as const),
    )
    .action((options) => {
      const programId = required(options.program, '--program <id>');
      const scope = options.scope;
      const name = options.name ?? `${scope} key`;
      return run(async (deps) => {
        const { createApiKey } = await import('../../modules/api-keys/api-keys.service.ts');
        const { getProgramOrThrow } = await import('../../modules/program/program.service.ts');
        const program = await getProgramOrThrow(deps, programId);
        return createApiKey(deps, program.id, { name, scope });
      });
    });
}
