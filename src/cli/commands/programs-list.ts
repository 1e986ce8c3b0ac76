import type { Command } from '@commander-js/extra-typings';
import { type Run, wholeNumber } from './command.ts';

const MAX_LIMIT = 250;

export function addProgramsList(programs: Command, run: Run): void {
  programs
    .command('list')
    .description('list programs, oldest first')
    .option('--page <n>', 'page number, from 1', wholeNumber, 1)
    .option('--limit <n>', `programs per page, at most ${MAX_LIMIT}`, wholeNumber, 50)
    .action((options) =>
      run(async (deps) => {
        const { listPrograms } = await import('../../modules/program/program.service.ts');
        const page = Math.max(1, options.page);
        const limit = Math.min(MAX_LIMIT, Math.max(1, options.limit));
        return (await listPrograms(deps, { page, limit, sort: 'asc' })).slice(0, limit);
      }),
    );
}
