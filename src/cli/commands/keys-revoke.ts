import { revokeApiKey } from '../../modules/api-keys/api-keys.service.ts';
import { type Command, options, required } from './command.ts';

export const keysRevoke: Command = {
  name: 'keys revoke',
  async run(deps, args) {
    const { positionals } = options(args, {});
    const id = required(positionals[0], 'KEY_ID');
    await revokeApiKey(deps, id);
    return { revoked: id };
  },
};
