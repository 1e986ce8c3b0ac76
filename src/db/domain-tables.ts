import type { ColumnType, Generated } from 'kysely';

/**
 * Micro-units of an amount: read as a number when a double holds it exactly, as a bigint when
 * not (db/postgres.ts, db/sqlite.ts); money code normalizes with `microsFrom` (core/money.ts).
 */
export type MicrosColumn = ColumnType<number | bigint, number | bigint, number | bigint>;

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
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
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
}

export interface RewardsTable {
  id: Generated<number>;
  program_id: number;
  transaction_id: number;
  partner_id: number | null;
  customer_id: number | null;
  /** `commission`, `tier2`, `referrer`, `referred`. */
  role: string;
  /** `review_period`, `ok`, `paid`. */
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
  }
}
