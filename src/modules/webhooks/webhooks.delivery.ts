import type { Insertable } from 'kysely';
import type { Resources, WebhookSender } from '../../context.ts';
import { randomAlphanumeric } from '../../core/ids.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { formatTimestamp } from '../../core/time.ts';
import { AddressGuard } from './webhooks.address-guard.ts';
import { WebhookHttpClient } from './webhooks.http-client.ts';
import type { ClaimedDelivery, DeliveryResult, WebhookRow } from './webhooks.repository.ts';
import * as repository from './webhooks.repository.ts';
import {
  CLAIM_LEASE_MS,
  DELIVERY_TIMEOUT_MS,
  MAX_ATTEMPTS,
  retryDelayMs,
  verdictOf,
} from './webhooks.schedule.ts';
import { deliveryHeaders, envelope } from './webhooks.signing.ts';
import type { WebhookDeliveriesTable } from './webhooks.tables.ts';

export interface DeliveryOptions {
  /** Per-request deadline (15 s; tests shorten it). */
  timeoutMs?: number;
  /** Source of jitter (tests pin it). */
  random?: () => number;
  /** Events fanned out per transaction. */
  dispatchBatch?: number;
}

/** The `webhook-id` of a delivery: the same on every attempt, so receivers can de-duplicate. */
export const newDeliveryId = () => `msg_${randomAlphanumeric(24)}`;

type Subscriber = { id: number; program_id: number; key: string; url: string; events: string };

/**
 * Webhook delivery, step by step, for the worker loop and for the API's immediate sends (test,
 * retry): fan outbox events out to deliveries, claim due deliveries, post them, record results.
 */
export class WebhookDeliverer implements WebhookSender {
  readonly #deps: Resources & { secrets: SecretBox };
  readonly #client: WebhookHttpClient;
  readonly #random: () => number;
  readonly #dispatchBatch: number;

  constructor(deps: Resources & { secrets: SecretBox }, options: DeliveryOptions = {}) {
    this.#deps = deps;
    this.#client = new WebhookHttpClient(
      new AddressGuard(deps.config.webhookAllowCidrs),
      options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    );
    this.#random = options.random ?? Math.random;
    this.#dispatchBatch = options.dispatchBatch ?? 500;
  }

  #now(offsetMs = 0): string {
    return formatTimestamp(this.#deps.clock.nowMicros() + offsetMs * 1000);
  }

  /**
   * Turns undispatched outbox events into one delivery per active webhook of the event's program
   * that subscribes to it, and marks the events dispatched, in one transaction. Returns how many
   * events it took.
   */
  async dispatchEvents(): Promise<number> {
    const { db } = this.#deps.database;
    return db.transaction().execute(async (trx) => {
      const events = await repository.lockUndispatchedEvents(trx, this.#dispatchBatch);
      if (events.length === 0) return 0;
      const now = this.#now();
      const programIds = [...new Set(events.map((e) => e.program_id))];
      const byProgram = new Map<number, (Subscriber & { subscribed: Set<string> })[]>();
      for (const hook of await repository.activeWebhooksOfPrograms(trx, programIds)) {
        const list = byProgram.get(hook.program_id) ?? [];
        list.push({ ...hook, subscribed: new Set(JSON.parse(hook.events) as string[]) });
        byProgram.set(hook.program_id, list);
      }
      const rows: Insertable<WebhookDeliveriesTable>[] = [];
      for (const event of events) {
        for (const hook of byProgram.get(event.program_id) ?? []) {
          if (!hook.subscribed.has(event.event)) continue;
          rows.push({
            program_id: event.program_id,
            webhook_id: hook.id,
            public_id: newDeliveryId(),
            event_id: event.id,
            event: event.event,
            body: envelope(event.event, hook.url, hook.key, event.created_at, event.payload),
            is_test: false,
            status: 'pending',
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          });
        }
      }
      await repository.insertDeliveries(trx, rows);
      await repository.markEventsDispatched(
        trx,
        events.map((e) => e.id),
        now,
      );
      return events.length;
    });
  }

  /** Claims up to `limit` due deliveries, each with its webhook (undefined: deleted meanwhile). */
  async claimDue(limit: number): Promise<{ delivery: ClaimedDelivery; webhook: WebhookRow | undefined }[]> {
    if (limit <= 0) return [];
    const { db } = this.#deps.database;
    const claimed = await repository.claimDueDeliveries(db, this.#now(), this.#now(CLAIM_LEASE_MS), limit);
    return this.#withWebhooks(claimed);
  }

  async claimOne(deliveryId: number) {
    const { db } = this.#deps.database;
    const claimed = await repository.claimDelivery(db, deliveryId, this.#now(), this.#now(CLAIM_LEASE_MS));
    return claimed ? (await this.#withWebhooks([claimed]))[0] : undefined;
  }

  async #withWebhooks(claimed: ClaimedDelivery[]) {
    const ids = [...new Set(claimed.map((d) => d.webhook_id))];
    const webhooks = new Map(
      (await repository.findWebhooksByIds(this.#deps.database.db, ids)).map((w) => [w.id, w]),
    );
    return claimed.map((delivery) => ({ delivery, webhook: webhooks.get(delivery.webhook_id) }));
  }

  /**
   * Makes one attempt and says what to record. A webhook turned off after the event was fanned
   * out is not called (`cancelled`), except by an explicit test or retry (`force`).
   */
  async attempt(
    delivery: ClaimedDelivery,
    webhook: WebhookRow | undefined,
    force = false,
  ): Promise<DeliveryResult> {
    const base = { deliveryId: delivery.id, programId: delivery.program_id, webhookId: delivery.webhook_id };
    if (!webhook || (!webhook.is_active && !force)) {
      const at = this.#now();
      return {
        ...base,
        status: 'cancelled',
        attempts: delivery.attempts,
        nextAttemptAt: at,
        lastError: 'The webhook was deactivated before this delivery was sent.',
        at,
      };
    }
    const seconds = Math.floor(this.#deps.clock.nowMicros() / 1_000_000);
    const secret = this.#deps.secrets.open(webhook.signature);
    const headers = deliveryHeaders(secret, delivery.public_id, seconds, delivery.body);
    const outcome = await this.#client.post(webhook.url, headers, delivery.body);
    const at = this.#now();
    const attempts = delivery.attempts + 1;
    const verdict = verdictOf(outcome);
    const error =
      outcome.error ?? (verdict === 'succeeded' ? null : `The receiver answered HTTP ${outcome.statusCode}.`);
    const delay =
      verdict === 'retry' && !delivery.is_test && attempts < MAX_ATTEMPTS
        ? retryDelayMs(attempts, this.#random)
        : undefined;
    const nextAttemptAt = delay === undefined ? null : this.#now(delay);
    const status = verdict === 'succeeded' ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed';
    return {
      ...base,
      status,
      attempts,
      nextAttemptAt: nextAttemptAt ?? at,
      lastError: error,
      at,
      attempt: {
        attempt: attempts,
        status: verdict === 'succeeded' ? 'succeeded' : 'failed',
        response_code: outcome.statusCode,
        duration_ms: outcome.durationMs,
        error,
        next_attempt_at: nextAttemptAt,
        created_at: at,
      },
      ...(verdict === 'gone'
        ? { disableWebhook: `The receiver answered 410 Gone at ${at}: the webhook was turned off.` }
        : {}),
    };
  }

  async record(results: DeliveryResult[]) {
    return repository.recordResults(this.#deps.database.db, results);
  }

  /**
   * One pass, for tests and the CLI: fans out every waiting event, then claims and sends what is
   * due (up to `limit`), waiting for every answer. Returns the counts.
   */
  async runOnce(limit = 1000): Promise<{ dispatched: number; attempted: number }> {
    let dispatched = 0;
    for (let n = await this.dispatchEvents(); n > 0; n = await this.dispatchEvents()) dispatched += n;
    const claimed = await this.claimDue(limit);
    const results = await Promise.all(
      claimed.map(({ delivery, webhook }) => this.attempt(delivery, webhook)),
    );
    await this.record(results);
    return { dispatched, attempted: results.filter((r) => r.attempt).length };
  }

  /** Claims one delivery, attempts it at once (even if its webhook is off) and records the attempt. */
  async sendNow(deliveryId: number): Promise<number | 'busy' | undefined> {
    const claimed = await this.claimOne(deliveryId);
    if (!claimed) return 'busy';
    const result = await this.attempt(claimed.delivery, claimed.webhook, true);
    return (await this.record([result])).get(deliveryId);
  }

  close(): void {
    this.#client.close();
  }
}
