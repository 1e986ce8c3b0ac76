import type { Command } from '@commander-js/extra-typings';
import type { Run } from './command.ts';

export function addKeysRevoke(keys: Command, run: Run): void {
  keys
    .command('revoke')
    .description('revoke an API key at once')
    .argument('<key-id>', "the key's id, as `keys create` printed it")
    .action((id) =>
      run(async (deps) => {
        const { revokeApiKey } = await import('../../modules/api-keys/api-keys.service.ts');
        await revokeApiKey(deps, id);
        return { revoked: id };
      }),
    );
}
