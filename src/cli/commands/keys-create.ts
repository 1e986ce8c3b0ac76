import { createApiKey } from '../../modules/api-keys/api-keys.service.ts';
import { getProgramOrThrow } from '../../modules/program/program.service.ts';
import { type Command, options, required, UsageError } from './command.ts';

export const keysCreate: Command = {
  name: 'keys create',
  async run(deps, args) {
    const { values } = options(args, {
      program: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
    });
    const scope = values.scope ?? 'full';
    if (scope !== 'full' && scope !== 'read') throw new UsageError('--scope must be full or read');
    const program = await getProgramOrThrow(deps, required(values.program, '--program'));
    return createApiKey(deps, program.id, { name: values.name ?? `${scope} key`, scope });
  },
};
