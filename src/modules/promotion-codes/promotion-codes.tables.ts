import type { Generated } from 'kysely';

/** Tables of the promotion-codes module (migration 0013). Booleans read back as 0/1 on SQLite. */
type Bool = boolean | number;

export interface PromotionCodesTable {
  id: Generated<number>;
  program_id: number;
  coupon_id: number;
  code: string;
  /** The code lower-cased: codes are unique and found case-insensitively. */
  code_lower: string;
  first_time_order: Bool;
  limit_partners: Bool;
  /** JSON array of {id, full_name, ref}: `ref` is the partner's internal id. */
  partners: string;
  limit_customers: Bool;
  /** JSON array of {id, customer_full_name, ref}: `ref` is the customer's internal id. */
  customers: string;
  minimum_order_status: Bool;
  /** Whole units of the sale's currency. */
  minimum_order_value: number | null;
  expiration_status: Bool;
  /** `YYYY-MM-DD`: the last day the code may be redeemed. */
  expiration_value: string | null;
  times_status: Bool;
  times_value: number | null;
  times_redeemed: Generated<number>;
  /** JSON object. */
  metadata: string;
  /**
   * What the create request said (core/request-digest.ts), so the same request again replays;
   * null for codes made inside a coupon's create (the coupon's digest covers them).
   */
  request_digest: string | null;
  created_at: string;
  updated_at: string;
}

export interface PromotionCodeRedemptionsTable {
  id: Generated<number>;
  program_id: number;
  promotion_code_id: number;
  transaction_key: string | null;
  redeemed_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    promotion_codes: PromotionCodesTable;
    promotion_code_redemptions: PromotionCodeRedemptionsTable;
  }
}
