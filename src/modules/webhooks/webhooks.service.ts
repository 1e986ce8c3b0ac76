import type { Deps, ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { AppError, fieldError, notFound } from '../../core/errors.ts';
import { newKey, randomAlphanumeric } from '../../core/ids.ts';
import type { PageRequest } from '../../core/pages.ts';
import { nowTimestamp } from '../../core/time.ts';
import { AddressGuard } from './webhooks.address-guard.ts';
import { newDeliveryId } from './webhooks.delivery.ts';
import type { AttemptRow, WebhookRow } from './webhooks.repository.ts';
import * as repository from './webhooks.repository.ts';
import type { CreateWebhookBody, UpdateWebhookBody } from './webhooks.schemas.ts';
import { envelope } from './webhooks.signing.ts';

/** The signing secret is shown to full-scope keys only: a read-only key could forge deliveries with it. */
function present(ctx: ProgramContext, row: WebhookRow) {
  return {
    key: row.key,
    name: row.name,
    url: row.url,
    is_active: Boolean(row.is_active),
    ...(ctx.program.scope === 'full' ? { signature: ctx.secrets.open(row.signature) } : {}),
    events: JSON.parse(row.events) as string[],
  };
}

function presentAttempt(row: AttemptRow) {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    event: row.event,
    test: Boolean(row.is_test),
    attempt: row.attempt,
    status: row.status,
    response_code: row.response_code,
    duration_ms: row.duration_ms,
    error: row.error,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
  };
}

/** A URL whose host is an IP literal the delivery guard would refuse is refused at once. */
function assertDeliverableUrl(ctx: ProgramContext, url: string) {
  const refused = new AddressGuard(ctx.config.webhookAllowCidrs).refusedLiteral(url);
  if (refused !== undefined) {
    throw fieldError('url', 'privateAddress', refused);
  }
}

async function getWebhookRowOrThrow(ctx: ProgramContext, key: string) {
  const row = await repository.findWebhookByKey(ctx.database.db, ctx.program.id, key);
  if (!row) throw notFound('Webhook');
  return row;
}

export async function createWebhook(ctx: ProgramContext, body: CreateWebhookBody) {
  assertDeliverableUrl(ctx, body.url);
  const now = nowTimestamp(ctx.clock);
  const row = await repository.insertWebhook(ctx.database.db, {
    program_id: ctx.program.id,
    key: body.key ?? newKey(),
    name: body.name,
    url: body.url,
    is_active: booleanOf(body.is_active, true),
    // 32 alphanumerics: about 190 bits, sealed with the server key at rest.
    signature: ctx.secrets.seal(randomAlphanumeric(32)),
    events: JSON.stringify([...new Set(body.events)]),
    created_at: now,
    updated_at: now,
  });
  if (!row) throw fieldError('key', 'taken');
  return present(ctx, row);
}

export async function getWebhook(ctx: ProgramContext, key: string) {
  return present(ctx, await getWebhookRowOrThrow(ctx, key));
}

export async function listWebhooks(ctx: ProgramContext, page: PageRequest) {
  return (await repository.listWebhooks(ctx.database.db, ctx.program.id, page)).map((row) =>
    present(ctx, row),
  );
}

export async function updateWebhook(ctx: ProgramContext, key: string, body: UpdateWebhookBody) {
  const row = await getWebhookRowOrThrow(ctx, key);
  if (body.url !== undefined) assertDeliverableUrl(ctx, body.url);
  const updated = await repository.updateWebhook(ctx.database.db, ctx.program.id, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.is_active !== undefined
      ? { is_active: booleanOf(body.is_active, true), disabled_reason: null }
      : {}),
    ...(body.events !== undefined ? { events: JSON.stringify([...new Set(body.events)]) } : {}),
    updated_at: nowTimestamp(ctx.clock),
  });
  if (!updated) throw notFound('Webhook');
  return present(ctx, updated);
}

export async function deleteWebhook(ctx: ProgramContext, key: string) {
  const row = await getWebhookRowOrThrow(ctx, key);
  await repository.deleteWebhook(ctx.database.db, ctx.program.id, row.id);
}

export async function listWebhookDeliveries(ctx: ProgramContext, key: string, page: PageRequest) {
  const row = await getWebhookRowOrThrow(ctx, key);
  return (await repository.listAttempts(ctx.database.db, ctx.program.id, row.id, page)).map(presentAttempt);
}

/** Sends a delivery now and returns the attempt as the deliveries log shows it. */
async function attemptNow(ctx: ProgramContext, deliveryId: number) {
  const attemptId = await ctx.webhookSender.sendNow(deliveryId);
  if (attemptId === 'busy') {
    throw fieldError('id', 'refused', 'The delivery is being sent right now; try again in a minute.');
  }
  const attempt =
    attemptId === undefined
      ? undefined
      : await repository.findAttempt(ctx.database.db, ctx.program.id, attemptId);
  if (!attempt) throw new AppError('not_found', 'Webhook not found.');
  return presentAttempt(attempt);
}

export async function testWebhook(ctx: ProgramContext, key: string) {
  const row = await getWebhookRowOrThrow(ctx, key);
  const event = (JSON.parse(row.events) as string[])[0] ?? 'test';
  const now = nowTimestamp(ctx.clock);
  const delivery = await repository.insertDelivery(ctx.database.db, {
    program_id: ctx.program.id,
    webhook_id: row.id,
    public_id: newDeliveryId(),
    event_id: null,
    event,
    body: envelope(event, row.url, row.key, now, JSON.stringify(sampleResource(event, now))),
    is_test: true,
    status: 'pending',
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  });
  return attemptNow(ctx, delivery.id);
}

export async function retryWebhookDelivery(ctx: ProgramContext, key: string, deliveryPublicId: string) {
  const row = await getWebhookRowOrThrow(ctx, key);
  const delivery = await repository.findDelivery(ctx.database.db, ctx.program.id, row.id, deliveryPublicId);
  if (!delivery) throw notFound('Delivery');
  return attemptNow(ctx, delivery.id);
}

/** What a test delivery carries: a resource of the event's kind, marked as a sample. */
function sampleResource(event: string, now: string) {
  const common = { id: 'sample000001', created_at: now, updated_at: now, sample: true };
  switch (event.split('.')[0]) {
    case 'partner':
      return {
        ...common,
        email: 'partner@example.com',
        name: 'Sample',
        surname: 'Partner',
        status: 'active',
      };
    case 'customer':
      return { ...common, key: 'sample-customer', email: 'customer@example.com', name: 'Sample Customer' };
    case 'transaction':
      return { ...common, key: 'sample-transaction', amount: 99.99, currency: 'usd' };
    case 'lead':
      return {
        id: 1,
        status: 'submitted',
        created_at: now.slice(0, 10),
        lead_info: { name: 'Sample Lead', email: 'lead@example.com' },
        converted_to: null,
        submitter: { id: 'sample000001', name: 'Sample Partner', email: 'partner@example.com' },
        submission_form: [
          { question: 'Name', answer: 'Sample Lead' },
          { question: 'Email address', answer: 'lead@example.com' },
        ],
        can_be_converted: true,
        can_be_rejected: true,
        sample: true,
      };
    case 'subscriber':
      return { ...common, email: 'subscriber@example.com', status: 'active' };
    default:
      return common;
  }
}

/**
 * Seals every webhook secret not yet sealed with the current server key: secrets stored before
 * encryption (at start-up) and, after a key rotation, those sealed with an older key. A
 * maintenance pass over every program, so not scoped by one. Answers how many it sealed.
 */
export async function sealWebhookSecrets(deps: Deps): Promise<number> {
  const { db } = deps.database;
  let sealed = 0;
  for (const row of await repository.listWebhookSecrets(db)) {
    if (deps.secrets.isCurrent(row.signature)) continue;
    const fresh = deps.secrets.seal(deps.secrets.open(row.signature));
    if (await repository.replaceWebhookSecret(db, row.program_id, row.id, row.signature, fresh)) sealed++;
  }
  return sealed;
}
