import { type Command, Option } from '@commander-js/extra-typings';
import { programTypes } from '../../core/program-types.ts';
import { httpUrl, type Run, required } from './command.ts';

export function addProgramsCreate(programs: Command, run: Run): void {
  programs
    .command('create')
    .description('create a program and its first API key (the key is shown once)')
    .option('--name <name>', "the program's name (required)")
    .addOption(new Option('--type <type>', 'the kind of program (required)').choices(programTypes))
    .option('--website <url>', 'the site partners link to', httpUrl)
    .action((options) => {
      const input = {
        name: required(options.name, '--name <name>'),
        type: required(options.type, '--type <type>'),
        ...(options.website ? { website: options.website } : {}),
      };
      return run(async (deps) => {
        const { createProgramWithKey } = await import('../../modules/program/program.service.ts');
        return createProgramWithKey(deps, input);
      });
    });
}
