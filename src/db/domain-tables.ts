import type { ColumnType, Generated } from 'kysely';

/**
 * Micro-units of an amount: read as a number when a double holds it exactly, as a bigint when
 * not (db/postgres.ts, db/sqlite.ts); money code normalizes with `microsFrom` (core/money.ts).
 */
export type MicrosColumn = ColumnType<number | bigint, number | bigint, number | bigint>;
/** Micro-units that may be absent (null), optional on insert. */
export type NullableMicrosColumn = ColumnType<
  number | bigint | null,
  number | bigint | null | undefined,
  number | bigint | null
>;

/**
 * Tables of the referral domain (migration 0002), shared by the affiliate and refer-a-friend
 * modules. Booleans read back as 0/1 on SQLite: map them with `Boolean(x)`. Money is integer
 * micro-units (core/money.ts).
 */
type Bool = boolean | number;

export interface PartnersTable {
  id: Generated<number>;
  program_id: number;
  public_id: string;
  email: string;
  name: string | null;
  surname: string | null;
  password_hash: string | null;
  tos: Generated<Bool>;
  approved: Generated<Bool>;
  /** `active`, `pending` or `archived` (contract §6). */
  status: Generated<string>;
  status_before_archive: string | null;
  custom_fields: Generated<string>;
  /** JSON array of strings. */
  tags: Generated<string>;
  referring_partner_id: number | null;
  created_at: string;
  updated_at: string;
  /** `paypal`, `wise`, `bank_transfer`, `manual`; null: not set (migration 0016). */
  payout_method: Generated<string | null>;
  /** JSON object: the method's fields. */
  payout_details: Generated<string | null>;
}

export interface LinkDomainsTable {
  id: Generated<number>;
  program_id: number;
  domain: string;
  created_at: string;
}

export interface CustomersTable {
  id: Generated<number>;
  program_id: number;
  public_id: string;
  key: string;
  email: string | null;
  name: string | null;
  surname: string | null;
  tos: Generated<Bool>;
  approved: Generated<Bool>;
  status: Generated<string>;
  custom_fields: Generated<string>;
  /** JSON object. */
  metadata: Generated<string>;
  tags: Generated<string>;
  partner_id: number | null;
  referral_link_id: number | null;
  referring_customer_id: number | null;
  /** Signed up with its referrer's own e-mail (core/self-referral.ts): its sales earn nothing. */
  self_referral: Generated<Bool>;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** PostgreSQL: moved on by every write of the buyer's sale figures (migration 0023). */
  sale_version: Generated<number>;
  /** The open fraud flag holding this customer's commissions (migration 0032); null: none. */
  fraud_flag: Generated<string | null>;
}

export interface ReferralLinksTable {
  id: Generated<number>;
  program_id: number;
  key: string;
  partner_id: number | null;
  customer_id: number | null;
  is_default: Bool;
  is_additional: Generated<Bool>;
  domain_id: number | null;
  direct_tracking: Generated<Bool>;
  direct_tracking_redirect: Generated<Bool>;
  direct_tracking_redirect_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface TransactionsTable {
  id: Generated<number>;
  program_id: number;
  key: string;
  customer_id: number;
  /** The buyer's key, kept with each sale for the export (migration 0043). */
  customer_key: string;
  partner_id: number | null;
  referring_customer_id: number | null;
  action: string;
  amount: MicrosColumn;
  amount_units: string | null;
  is_currency: Bool;
  credit: Bool;
  rewarded: Bool;
  rewardable: Bool;
  product_id: string | null;
  product_type: string | null;
  request_digest: string;
  archived_at: string | null;
  created_at: string;
  deleted_at: string | null;
  /** Micro-units refunded so far; null: never refunded (migration 0016). */
  refunded_amount: NullableMicrosColumn;
}

export interface RewardsTable {
  id: Generated<number>;
  program_id: number;
  /** Null for manual commissions (migration 0016). */
  transaction_id: number | null;
  partner_id: number | null;
  customer_id: number | null;
  /** `commission`, `tier2`, `referrer`, `referred`; `manual` and `clawback` commissions. */
  role: string;
  /** `review_period`, `ok`, `paid`, `denied`, `voided` (core/commission-status.ts). */
  status: string;
  amount: MicrosColumn;
  amount_units: string;
  is_currency: Bool;
  credit: Bool;
  commission_type: string;
  commission_value: string;
  product_id: string | null;
  product_type: string | null;
  available_at: string | null;
  created_at: string;
  deleted_at: string | null;
  /** Commission review and payment (migration 0016). */
  payout_id: Generated<number | null>;
  approved_at: Generated<string | null>;
  paid_at: Generated<string | null>;
  reason: Generated<string | null>;
  description: Generated<string | null>;
  updated_at: Generated<string | null>;
  original_amount: NullableMicrosColumn;
  /** The open fraud flag holding this commission, and the due date it gives back when cleared (0032). */
  fraud_flag: Generated<string | null>;
  held_available_at: Generated<string | null>;
}

export interface PayoutsTable {
  id: Generated<number>;
  program_id: number;
  public_id: string;
  /** `pending`, `paid`, `cancelled`. */
  status: string;
  currency: string;
  total: MicrosColumn;
  partner_count: number;
  created_at: string;
  paid_at: string | null;
  cancelled_at: string | null;
}

export interface PayoutItemsTable {
  id: Generated<number>;
  program_id: number;
  payout_id: number;
  /** Null once the partner is deleted (migration 0019): paid and cancelled payouts keep their items. */
  partner_id: number | null;
  amount: MicrosColumn;
  commission_count: number;
  payout_method: string | null;
  payout_details: string;
  /** The partner's id, e-mail and name when the payout was made (migration 0021; exports read them). */
  partner_public_id: Generated<string | null>;
  partner_email: Generated<string | null>;
  partner_name: Generated<string | null>;
  partner_surname: Generated<string | null>;
}

export interface BalanceCreditsTable {
  id: Generated<number>;
  program_id: number;
  customer_id: number;
  amount: MicrosColumn;
  amount_units: string;
  is_currency: Bool;
  created_at: string;
}

/** Figures of one partner, customer or link, kept current in the transaction of each change. */
export interface EntityCountersTable {
  program_id: number;
  /** `partner`, `customer`, `link`. */
  owner_kind: string;
  owner_id: number;
  /** `clicks`, `signups`, `sales_count`, `revenue:usd`, … */
  metric: string;
  /** The figure is `value_hi × 10^12 + value` (db/counter-parts.ts). */
  value: number;
  value_hi: Generated<number>;
  /** Which of a figure's rows (db/counter-slots.ts); a figure is the sum of its slots. */
  slot: Generated<number>;
}

/** Per-day figures of one partner, customer or link (`clicks` by day), for reports over time. */
export interface EntityCountersByDayTable {
  program_id: number;
  owner_kind: string;
  owner_id: number;
  metric: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  value: number;
  value_hi: Generated<number>;
}

/** Per-day report figures, kept by the triggers of migration 0034 (ADR 0123). */
/** Whose figure a report counter is: the program's (owner_id: its id), a partner's, a link's, a referrer's. */
export type ReportCounterOwner = 'program' | 'partner' | 'link' | 'customer';
/** The figures the report counters keep. */
export type ReportCounterMetric = 'customers' | 'signups' | 'sales' | 'revenue' | 'commissions' | 'rewards';

export interface ReportCountersTable {
  program_id: number;
  owner_kind: ReportCounterOwner;
  owner_id: number;
  metric: ReportCounterMetric;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** The money metrics' currency; '' for counts. */
  currency: string;
  slot: Generated<number>;
  value: number;
  value_hi: Generated<number>;
}

/** All-time figures per ranked owner, best first (migration 0040, SQLite only, ADR 0124). */
export interface ReportTotalsTable {
  program_id: number;
  owner_kind: Exclude<ReportCounterOwner, 'program'>;
  owner_id: number;
  metric: Extract<ReportCounterMetric, 'customers' | 'sales' | 'revenue'>;
  currency: string;
  value: number;
  value_hi: number;
}

declare module './tables.ts' {
  interface DB {
    partners: PartnersTable;
    link_domains: LinkDomainsTable;
    customers: CustomersTable;
    referral_links: ReferralLinksTable;
    transactions: TransactionsTable;
    rewards: RewardsTable;
    balance_credits: BalanceCreditsTable;
    entity_counters: EntityCountersTable;
    entity_counters_by_day: EntityCountersByDayTable;
    report_counters: ReportCountersTable;
    report_totals: ReportTotalsTable;
    payouts: PayoutsTable;
    payout_items: PayoutItemsTable;
  }
}
