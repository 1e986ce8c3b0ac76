import type { Generated } from 'kysely';

/** Tables of the portal module (migration 0017). */

/** Who a session or token belongs to: a partner (partner portal) or a customer (customer portal). */
export type PortalOwnerKind = 'partner' | 'customer';

export interface PortalSessionsTable {
  id: Generated<number>;
  program_id: number;
  /** SHA-256 (hex) of the cookie's secret: the database never holds a usable token. */
  token_hash: string;
  owner_kind: PortalOwnerKind;
  owner_id: number;
  credential_stamp: string;
  /** 1 when the owner was approved at sign-in, else 0. */
  approved: number;
  created_at: string;
  expires_at: string;
}

export interface PortalTokensTable {
  id: Generated<number>;
  program_id: number;
  token_hash: string;
  purpose: 'sign_in' | 'reset';
  owner_kind: PortalOwnerKind;
  owner_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface PortalSignInFailuresTable {
  program_id: number;
  subject: string;
  failures: number;
  last_failed_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    portal_sessions: PortalSessionsTable;
    portal_tokens: PortalTokensTable;
    portal_sign_in_failures: PortalSignInFailuresTable;
  }
}
