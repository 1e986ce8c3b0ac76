import type { Generated } from 'kysely';

/** Tables of the webhooks module (migration 0004). Booleans read back as 0/1 on SQLite. */
type Bool = boolean | number;

export interface WebhooksTable {
  id: Generated<number>;
  program_id: number;
  key: string;
  name: string;
  url: string;
  is_active: Bool;
  /** The secret the service issued; signs every delivery. */
  signature: string;
  /** JSON array of event names. */
  events: string;
  /** Why the service turned the webhook off (a receiver answered 410), if it did. */
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** `pending` (due at next_attempt_at), `sending` (claimed until next_attempt_at), then a final state. */
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed' | 'cancelled';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  program_id: number;
  webhook_id: number;
  /** The `webhook-id` header: the same on every attempt. */
  public_id: string;
  event_id: number | null;
  event: string;
  /** The exact bytes posted (and signed) on every attempt. */
  body: string;
  is_test: Bool;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  program_id: number;
  webhook_id: number;
  delivery_id: number;
  attempt: number;
  status: 'succeeded' | 'failed';
  response_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    webhooks: WebhooksTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}
