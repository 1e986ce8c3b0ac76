import type { Generated } from 'kysely';
import type { ConsoleRole } from '../../core/console-roles.ts';

/** Tables of the owner console (migration 0030). */

export interface ConsoleUsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  /** Booleans read back as 0/1 on SQLite. */
  operator: boolean | number;
  created_at: string;
  updated_at: string;
}

export interface ConsoleSessionsTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 (hex) of the cookie's secret: the database never holds a usable token. */
  token_hash: string;
  credential_stamp: string;
  created_at: string;
  expires_at: string;
}

export interface ConsoleMembersTable {
  program_id: number;
  user_id: number;
  role: ConsoleRole;
  created_at: string;
}

export interface ConsoleInvitesTable {
  id: Generated<number>;
  program_id: number;
  email: string;
  role: ConsoleRole;
  token_hash: string;
  invited_by: number | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ConsolePasswordResetsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ConsoleSignInFailuresTable {
  subject: string;
  failures: number;
  last_failed_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    console_users: ConsoleUsersTable;
    console_sessions: ConsoleSessionsTable;
    console_members: ConsoleMembersTable;
    console_invites: ConsoleInvitesTable;
    console_password_resets: ConsolePasswordResetsTable;
    console_sign_in_failures: ConsoleSignInFailuresTable;
  }
}
