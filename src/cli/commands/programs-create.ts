import { isProgramType, programTypes } from '../../core/program-types.ts';
import { createProgramWithKey } from '../../modules/program/program.service.ts';
import { type Command, options, required, UsageError } from './command.ts';

export const programsCreate: Command = {
  name: 'programs create',
  async run(deps, args) {
    const { values } = options(args, {
      name: { type: 'string' },
      type: { type: 'string' },
      website: { type: 'string' },
    });
    const type = required(values.type, '--type');
    if (!isProgramType(type)) throw new UsageError(`--type must be one of ${programTypes.join(', ')}`);
    if (values.website !== undefined && !/^https?:\/\/\S+$/.test(values.website)) {
      throw new UsageError('--website must be an http(s) URL');
    }
    return createProgramWithKey(deps, {
      name: required(values.name, '--name'),
      type,
      ...(values.website ? { website: values.website } : {}),
    });
  },
};
