import type { Deps } from './context.ts';

/**
 * The delivery loop for the outbox (webhooks and e-mails). The foundation records events and
 * e-mails; delivering them belongs to the webhooks module, which plugs its loops in here.
 */
export async function startWorker(_deps: Deps): Promise<{ stop(): Promise<void> }> {
  return { stop: async () => {} };
}
