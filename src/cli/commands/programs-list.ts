import { listPrograms } from '../../modules/program/program.service.ts';
import { type Command, options } from './command.ts';

export const programsList: Command = {
  name: 'programs list',
  async run(deps, args) {
    const { values } = options(args, { page: { type: 'string' }, limit: { type: 'string' } });
    const page = Math.max(1, Number(values.page ?? 1) || 1);
    const limit = Math.min(250, Math.max(1, Number(values.limit ?? 50) || 50));
    return (await listPrograms(deps, { page, limit, sort: 'asc' })).slice(0, limit);
  },
};
