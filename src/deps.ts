import type { Deps, Resources } from './context.ts';
import { WebhookDeliverer } from './modules/webhooks/webhooks.delivery.ts';
import { loadSecretBox } from './secret-key.ts';

/** The dependencies of one app (or CLI run) around the resources its process opened. */
export function assembleDeps(resources: Resources): Deps {
  const secrets = loadSecretBox(resources.config);
  return { ...resources, secrets, webhookSender: new WebhookDeliverer({ ...resources, secrets }) };
}

/** Closes what `assembleDeps` added; the resources stay open for their owner to close. */
export function closeDeps(deps: Deps): void {
  deps.webhookSender.close();
}
