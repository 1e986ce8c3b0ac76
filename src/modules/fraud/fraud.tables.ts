import type { Generated } from 'kysely';

/** Tables of fraud flags (migration 0032). */
export interface FraudFlagsTable {
  id: Generated<number>;
  program_id: number;
  public_id: string;
  rule: string;
  subject_kind: string;
  subject_id: number;
  subject_ref: string;
  owner_kind: string;
  owner_id: number;
  owner_ref: string;
  /** JSON object. */
  evidence: string;
  status: string;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
}

/** Referred signups of one owner from one address (a salted hash) on one UTC day. */
export interface FraudAddressSignupsTable {
  program_id: number;
  owner_kind: string;
  owner_id: number;
  address: string;
  day: string;
  signups: number | bigint;
}

/**
 * An address (a keyed hash) or click id an owner used in its portal, with the last time (migration
 * 0041).
 */
export interface FraudPortalSightingsTable {
  program_id: number;
  kind: 'address' | 'click';
  value: string;
  owner_kind: string;
  owner_id: number;
  last_seen_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    fraud_flags: FraudFlagsTable;
    fraud_address_signups: FraudAddressSignupsTable;
    fraud_portal_sightings: FraudPortalSightingsTable;
  }
}
