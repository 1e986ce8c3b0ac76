import { type Command, Option } from '@commander-js/extra-typings';
import { consoleRoles } from '../../core/console-roles.ts';
import { type Run, required, UsageError } from './command.ts';

export function addUsersCreate(users: Command, run: Run): void {
  users
    .command('create')
    .description(
      'create an owner console user: an operator of every program, or with --program a member of one',
    )
    .option('--email <email>', "the user's e-mail address (required)")
    .option(
      '--password <password>',
      'at least 8 characters with a lowercase, an uppercase letter and a digit (required)',
    )
    .option('--program <id>', "only this program's team (its id or public id), in --role")
    .addOption(
      new Option('--role <role>', 'the role in --program').choices(consoleRoles).default('owner' as const),
    )
    .action((options) => {
      const email = required(options.email, '--email <email>');
      const password = required(options.password, '--password <password>');
      return run(async (deps) => {
        const { createUser, addMember } = await import('../../modules/console/console.service.ts');
        const { getProgramOrThrow } = await import('../../modules/program/program.service.ts');
        const program = options.program ? await getProgramOrThrow(deps, options.program) : undefined;
        const created = await createUser(deps, { email, password, operator: program === undefined });
        if (created.kind === 'invalid') throw new UsageError(Object.values(created.errors).join(' '));
        if (created.kind === 'taken') throw new UsageError('a console user with this e-mail address exists');
        if (program) await addMember(deps, program.public_id, created.user.id, options.role);
        return {
          user: created.user,
          ...(program ? { program: program.public_id, role: options.role } : { programs: 'all (operator)' }),
        };
      });
    });
}
