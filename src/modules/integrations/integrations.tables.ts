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

export interface BillingEventsTable {
  id: Generated<number>;
  program_id: number;
  provider: BillingProvider;
  event_id: string;
  type: string;
  status: BillingEventStatus;
  reason: string | null;
  payload: string;
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
