import type { Generated } from 'kysely';
import type { MicrosColumn } from '../../db/domain-tables.ts';

/** Tables of the coupons module (migration 0013). Booleans read back as 0/1 on SQLite. */
type Bool = boolean | number;

export interface CouponsTable {
  id: Generated<number>;
  program_id: number;
  uuid_code: string;
  name: string;
  active: Bool;
  /** `percent` or `static`. */
  discount_type: string;
  /** Micro-units: of a percent (`percent`) or of the currency (`static`). */
  discount_amount: MicrosColumn;
  /** `once`, `hours`, `days`, `months`, `years`, `lifetime`. */
  duration_type: string;
  duration_value: number | null;
  date_status: Bool;
  /** `YYYY-MM-DD`: the last day the coupon's codes may be redeemed. */
  date_value: string | null;
  times_status: Bool;
  times_value: number | null;
  /** Redemptions of every code of the coupon, kept by the redeeming statement itself. */
  times_redeemed: Generated<number>;
  /** JSON object. */
  metadata: string;
  /** What the create request said (core/request-digest.ts), so the same request again replays. */
  request_digest: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

declare module '../../db/tables.ts' {
  interface DB {
    coupons: CouponsTable;
  }
}
