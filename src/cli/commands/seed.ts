import type { Command } from '@commander-js/extra-typings';
import { type Run, wholeNumber } from './command.ts';

export function addSeed(vouch: Command, run: Run): void {
  vouch
    .command('seed')
    .description('bulk demo and bench data: an affiliate program, or with --subscribers a newsletter')
    .option('--partners <n>', 'affiliate partners, each with a default link', wholeNumber, 0)
    .option('--customers <n>', "referred customers, spread over the partners' links", wholeNumber, 0)
    .option('--transactions <n>', 'sales with their commissions, spread over the customers', wholeNumber, 0)
    .option(
      '--subscribers <n>',
      'newsletter subscribers instead (each referring up to ten others)',
      wholeNumber,
    )
    .option('--program <id>', 'fill this program (of the matching type) instead of creating one', wholeNumber)
    .addHelpText(
      'after',
      `
Run it while no server writes to the database. A new program's API key is printed once.
  vouch seed --partners 100 --customers 10000 --transactions 50000
  vouch seed --subscribers 20000`,
    )
    .action((options) =>
      run(async (deps) => {
        const program = options.program !== undefined ? { programId: options.program } : {};
        if (options.subscribers !== undefined) {
          const { seedNewsletter } = await import('./seed-newsletter.ts');
          return seedNewsletter(deps, { ...program, subscribers: options.subscribers });
        }
        const { seedAffiliate } = await import('./seed-affiliate.ts');
        return seedAffiliate(deps, {
          ...program,
          partners: options.partners,
          customers: options.customers,
          transactions: options.transactions,
        });
      }),
    );
}
