import type { Generated } from 'kysely';

/** Tables of newsletter programs (migration 0014). Booleans read back as 0/1 on SQLite. */
type Bool = boolean | number;

export interface SubscribersTable {
  id: Generated<number>;
  program_id: number;
  public_id: string;
  /** As given; `email_lower` carries the unique key (contract §4.20). */
  email: string;
  email_lower: string;
  name: string | null;
  tos: Bool | null;
  marketing_consent: Bool | null;
  approved: Bool;
  /** `active`, `rejected`, `suspended` (lower case). */
  status: string;
  /** Names the subscriber in share and portal URLs. */
  code: string;
  /** The last segment of the portal URL. */
  secret: string;
  is_referred: Bool;
  referrer_id: number | null;
  /** Referred subscribers that are active and approved, kept in the transaction of each change. */
  referrals_count: Generated<number>;
  /** What the create request said, so the same request again replays (core/insert-or-replay.ts). */
  request_digest: string;
  /** While set, the referral counts for no one yet (`referral_pending_days`, migration 0035). */
  referral_pending_until: string | null;
  /** Unsubscribed inside its pending window: this referral never counts. */
  referral_lapsed_at: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    subscribers: SubscribersTable;
  }
}
