import type { Deps, Resources } from './context.ts';
import { WebhookDeliverer } from './modules/webhooks/webhooks.delivery.ts';

/** The dependencies of one app (or CLI run) around the resources its process opened. */
export function assembleDeps(resources: Resources): Deps {
  return { ...resources, webhookSender: new WebhookDeliverer(resources) };
}

/** Closes what `assembleDeps` added; the resources stay open for their owner to close. */
export function closeDeps(deps: Deps): void {
  deps.webhookSender.close();
}
