import type { Command } from '@commander-js/extra-typings';
import type { Run } from './command.ts';

/**
 * `vouch worker`: the delivery loop (webhooks, e-mails) apart from the API, until SIGTERM or
 * SIGINT; run the API with WORKER=off then. `--once` makes one pass and prints its counts.
 */
export function addWorker(vouch: Command, run: Run): void {
  vouch
    .command('worker')
    .description('deliver webhooks and e-mails until SIGTERM or SIGINT (run the API with WORKER=off)')
    .option('--once', 'make one delivery pass, print its counts and exit')
    .action((options) =>
      run(async (deps) => {
        const { createWorker, startWorker } = await import('../../worker.ts');
        if (options.once) {
          const once = createWorker(deps);
          try {
            return await once.runOnce();
          } finally {
            once.close();
          }
        }
        const running = await startWorker(deps);
        console.error('vouch worker: delivering webhooks and e-mails; SIGTERM or SIGINT stops it');
        await new Promise<void>((resolve) => {
          process.once('SIGTERM', resolve);
          process.once('SIGINT', resolve);
        });
        await running.stop();
        return undefined;
      }),
    );
}
