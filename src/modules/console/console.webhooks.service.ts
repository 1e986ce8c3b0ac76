import { AppError } from '../../core/errors.ts';
import { eventsByProgramType } from '../../core/events.ts';
import { type FieldProblem, renderProblem } from '../../core/messages.ts';
import type { CreateWebhookBody, UpdateWebhookBody } from '../webhooks/webhooks.schemas.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  retryWebhookDelivery,
  testWebhook,
  updateWebhook,
} from '../webhooks/webhooks.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** The webhooks pages' reads and writes, through the webhooks service as `/v1/webhooks` does them. */

export { CreateWebhookBodyByType } from '../webhooks/webhooks.schemas.ts';

export const eventsOf = (program: ConsoleProgram): readonly string[] => eventsByProgramType[program.type];

export interface WebhookForm {
  name: string;
  url: string;
  active: boolean;
  events: string[];
}

/** The body `POST /v1/webhooks` would get from the form. */
export const webhookBody = (form: WebhookForm) => ({
  name: form.name,
  url: form.url,
  is_active: form.active,
  events: form.events,
});

export const webhooksOf = (program: ConsoleProgram) =>
  listWebhooks(program.ctx, { page: 1, limit: 100, sort: 'desc' });

/** One webhook with its latest delivery attempts; undefined for an unknown key. */
export async function webhookDetail(program: ConsoleProgram, key: string) {
  try {
    const webhook = await getWebhook(program.ctx, key);
    const attempts = await listWebhookDeliveries(program.ctx, key, { page: 1, limit: 50, sort: 'desc' });
    return { webhook, attempts: attempts.slice(0, 50) };
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  }
}

export const fieldErrors = (problems: readonly FieldProblem[]) => {
  const errors: Record<string, string> = {};
  for (const problem of problems) {
    const field = problem.field.startsWith('events') ? 'events' : problem.field;
    errors[field] = errors[field] ? `${errors[field]} ${renderProblem(problem)}` : renderProblem(problem);
  }
  return errors;
};

export type WebhookWrite =
  | { kind: 'done'; key: string }
  | { kind: 'invalid'; errors: Record<string, string> };

/** Runs a webhook write; a refusal of the service comes back as the page's field errors. */
async function refusedAsErrors(write: () => Promise<WebhookWrite>): Promise<WebhookWrite> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof AppError && error.status === 422)
      return {
        kind: 'invalid',
        errors: error.problems.length > 0 ? fieldErrors(error.problems) : { url: error.message },
      };
    throw error;
  }
}

export const addWebhook = (program: ConsoleProgram, body: CreateWebhookBody) =>
  refusedAsErrors(async () => {
    const webhook = await createWebhook(program.ctx, body);
    await logActivity(program, 'webhook.create', {
      subject: webhook.key,
      changes: { url: { before: null, after: webhook.url }, events: { before: null, after: webhook.events } },
    });
    return { kind: 'done', key: webhook.key };
  });

export const changeWebhook = (program: ConsoleProgram, key: string, body: UpdateWebhookBody) =>
  refusedAsErrors(async () => {
    const before = await getWebhook(program.ctx, key);
    const after = await updateWebhook(program.ctx, key, body);
    const fields = ['name', 'url', 'is_active', 'events'] as const;
    const changes = Object.fromEntries(
      fields
        .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
        .map((field) => [field, { before: before[field], after: after[field] }]),
    );
    await logActivity(program, 'webhook.update', { subject: key, changes });
    return { kind: 'done', key };
  });

export async function removeWebhook(program: ConsoleProgram, key: string) {
  await deleteWebhook(program.ctx, key);
  await logActivity(program, 'webhook.delete', { subject: key });
}

/** Sends a sample event or a delivery again, now: the attempt's outcome in words. */
export async function sendNow(
  program: ConsoleProgram,
  key: string,
  deliveryId?: string,
): Promise<{ delivered: boolean; text: string }> {
  try {
    const attempt =
      deliveryId === undefined
        ? await testWebhook(program.ctx, key)
        : await retryWebhookDelivery(program.ctx, key, deliveryId);
    await logActivity(program, deliveryId === undefined ? 'webhook.test' : 'webhook.redeliver', {
      subject: deliveryId === undefined ? key : `${key} ${deliveryId}`,
    });
    return attempt.status === 'succeeded'
      ? {
          delivered: true,
          text: `Delivered: the endpoint answered ${attempt.response_code ?? ''} in ${attempt.duration_ms} ms.`,
        }
      : {
          delivered: false,
          text: `Not delivered: ${attempt.error ?? `the endpoint answered ${attempt.response_code ?? 'nothing'}`}.`,
        };
  } catch (error) {
    if (error instanceof AppError && (error.status === 422 || error.status === 404))
      return {
        delivered: false,
        text: error.problems.length > 0 ? error.problems.map(renderProblem).join(' ') : error.message,
      };
    throw error;
  }
}
