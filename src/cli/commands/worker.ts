import { parseArgs } from 'node:util';
import { createWorker, startWorker } from '../../worker.ts';
import type { Command } from './command.ts';

/**
 * `vouch worker`: the delivery loop (webhooks, e-mails) apart from the API, until SIGTERM or
 * SIGINT; run the API with WORKER=off then. `--once` makes one pass and prints its counts.
 */
export const worker: Command = {
  name: 'worker',
  async run(deps, args) {
    const { values } = parseArgs({ args, options: { once: { type: 'boolean' } }, strict: true });
    if (values.once) {
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
  },
};
