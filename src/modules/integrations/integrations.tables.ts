import type { ColumnType, Generated } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';

/** Tables of the integrations module (migration 0028). Booleans read back as 0/1 on SQLite. */
type Bool = boolean | number;
type Micros = ColumnType<number | bigint, number | bigint, number | bigint>;

export interface BillingIntegrationsTable {
  id: Generated<number>;
  program_id: number;
  provider: BillingProvider;
  /** Sealed with the server key (core/secret-box.ts). */
  secret: string;
  secret_hint: string;
  active: Bool;
  created_at: string;
  updated_at: string;
}

export const billingEventStatuses = [
  'processing',
  'processed',
  'ignored',
  'unattributed',
  'pending',
  'failed',
] as const;
export type BillingEventStatus = (typeof billingEventStatuses)[number];

/** Settled events that a retry runs again (`POST /v1/integrations/events/{id}/retry`). */
export const retriedStatuses = ['failed', 'unattributed'] as const satisfies readonly BillingEventStatus[];

/**
 * Whether an event in `status` keeps the payload it was received with: only while something may
 * run it again (a claim, a refund waiting for its sale, a retry). Processed and ignored events
 * never run again (a redelivery changes nothing), and the processor keeps its own copy (ADR 0104).
 */
export function keepsPayload(status: BillingEventStatus): boolean {
  return (
    status === 'processing' || status === 'pending' || (retriedStatuses as readonly string[]).includes(status)
  );
}

export interface BillingEventsTable {
  id: Generated<number>;
  program_id: number;
  provider: BillingProvider;
  event_id: string;
  type: string;
  status: BillingEventStatus;
  reason: string | null;
  /** The event as received, kept while it may run again (`keepsPayload`). */
  payload: string | null;
  transaction_key: string | null;
  customer_key: string | null;
  processor_customer: string | null;
  awaits: string | null;
  once_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface BillingSalesTable {
  program_id: number;
  provider: BillingProvider;
  transaction_key: string;
  amount: Micros;
  refunded: Micros;
}

export interface BillingSaleRefsTable {
  program_id: number;
  provider: BillingProvider;
  ref: string;
  transaction_key: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    billing_integrations: BillingIntegrationsTable;
    billing_events: BillingEventsTable;
    billing_sales: BillingSalesTable;
    billing_sale_refs: BillingSaleRefsTable;
  }
}
