import { Argument, type Command } from '@commander-js/extra-typings';
import { type Run, required, UsageError } from './command.ts';

const NAMES = ['partners', 'customers', 'transactions', 'commissions', 'subscribers'] as const;

/**
 * `vouch export <name> --program ID [filters] > file.csv`: the same file as
 * `GET /v1/exports/{name}.csv`, written to stdout as it is read. When stderr is a terminal it
 * shows a progress bar (rows written of the total); piped or redirected, stderr stays quiet.
 */
export function addExport(vouch: Command, run: Run): void {
  vouch
    .command('export')
    .description('write a full list as CSV to stdout (the API export, with a progress bar on a terminal)')
    .addArgument(new Argument('<name>', 'what to export').choices(NAMES))
    .option('--program <id>', "the program's id or public id (required)")
    .option('--start <date>', 'only rows created on or after this day (YYYY-MM-DD, program time zone)')
    .option('--end <date>', 'only rows created on or before this day')
    .option('--partner <id>', "a partner's id or key (customers, transactions, commissions)")
    .option('--referrer <id>', "a referrer's id or key (customers)")
    .option('--customer <id>', "a buyer's id or key (transactions)")
    .option('--status <status>', 'partners: active, pending, archived; commissions: pending, approved, …')
    .option('--currency <code>', 'commissions in this currency')
    .option('--refer-status <status>', 'subscribers: referred or non_referred')
    .addHelpText('after', '\n  vouch export partners --program 1 > partners.csv')
    .action((name, options) => {
      const programRef = required(options.program, '--program <id>');
      return run(async (deps) => {
        const { getProgramOrThrow } = await import('../../modules/program/program.service.ts');
        const { exportCsv, exportProgramTypes } = await import(
          '../../modules/reports/reports.exports.service.ts'
        );
        const program = await getProgramOrThrow(deps, programRef);
        if (!exportProgramTypes(name).includes(program.type))
          throw new UsageError(`this program (${program.type}) has no ${name} export`);
        const query = {
          ...(options.start === undefined ? {} : { start: options.start }),
          ...(options.end === undefined ? {} : { end: options.end }),
          ...(options.partner === undefined ? {} : { partner: options.partner }),
          ...(options.referrer === undefined ? {} : { referrer: options.referrer }),
          ...(options.customer === undefined ? {} : { customer: options.customer }),
          ...(options.status === undefined ? {} : { status: options.status }),
          ...(options.currency === undefined ? {} : { currency: options.currency }),
          ...(options.referStatus === undefined ? {} : { refer_status: options.referStatus }),
        };
        const file = await exportCsv(
          deps,
          { id: program.id, publicId: program.public_id, type: program.type },
          name,
          query,
        );
        const bar = process.stderr.isTTY ? progressBar(await file.countRows()) : undefined;
        await file.writeTo(process.stdout, () => bar?.(file.rowsWritten()));
        bar?.(file.rowsWritten(), true);
        return undefined;
      });
    });
}

/** A one-line bar on stderr, redrawn in place: `[#####.....] 1,234 / 5,678 rows`. */
function progressBar(total: number) {
  const width = 30;
  const format = new Intl.NumberFormat('en');
  return (written: number, done = false) => {
    const share = total === 0 ? 1 : Math.min(1, written / total);
    const filled = Math.round(share * width);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${format.format(written)} / ${format.format(total)} rows`;
    process.stderr.write(`\r${line}${done ? '\n' : ''}`);
  };
}
