import type { Generated } from 'kysely';
import type { ProgramType } from '../core/program-types.ts';

/**
 * The tables of the foundation. Each module declares its own tables next to its code and adds
 * them to `DB` by declaration merging (`declare module '../../db/tables.ts'`), so this file does
 * not grow with every resource.
 *
 * Conventions: timestamps are TEXT in the wire format (`…T…​.ffffffZ`, sortable); booleans are
 * BOOLEAN on PostgreSQL and 0/1 on SQLite (read them with `Boolean(x)`); money is integer
 * micro-units; every tenant table has `program_id` leading its unique keys and indexes.
 */
export interface ProgramsTable {
  id: Generated<number>;
  public_id: string;
  name: string;
  type: ProgramType;
  website: string | null;
  /** JSON: the type's `program_settings`, defaults filled in at read time. */
  settings: string;
  /** JSON: the type's `portal_settings`. */
  portal_settings: string;
  /** An affiliate program's own host name of its partner portal (lower case), or null. */
  portal_host: string | null;
  /** The uploaded logo's digest (its URL's last part, program_logos), or null. */
  logo_digest: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  /** Public half of the token (`vk_<public_id>_<secret>`), used to find the row. */
  public_id: string;
  program_id: number;
  name: string;
  scope: 'full' | 'read';
  /** SHA-256 of the secret half, hex. */
  secret_digest: string;
  created_at: string;
  revoked_at: string | null;
}

/** The outbox: one row per domain event, written in the transaction of the change. */
export interface EventsTable {
  id: Generated<number>;
  program_id: number;
  event: string;
  /** JSON: the resource as the API returns it. */
  payload: string;
  created_at: string;
  /** Set once the delivery worker has fanned the event out to webhooks. */
  dispatched_at: string | null;
}

export interface EmailOutboxTable {
  id: Generated<number>;
  /** Null for an e-mail of no program: a console user's own (a password reset). */
  program_id: number | null;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: string;
  next_attempt_at: string;
  attempts: Generated<number>;
  sent_at: string | null;
  last_error: string | null;
}

/**
 * Statistics shown by the API, kept current in the transaction of each change. `day` is
 * `YYYY-MM-DD` for a day's delta, or `total` for the running total.
 */
export interface ProgramCountersTable {
  program_id: number;
  metric: string;
  day: string;
  /** The figure is `value_hi × 10^12 + value` (db/counter-parts.ts). */
  value: number;
  value_hi: Generated<number>;
  /** Which of a figure's rows (db/counter-slots.ts); a figure is the sum of its slots. */
  slot: Generated<number>;
}

export interface DB {
  programs: ProgramsTable;
  api_keys: ApiKeysTable;
  events: EventsTable;
  email_outbox: EmailOutboxTable;
  program_counters: ProgramCountersTable;
}

import './domain-tables.ts';
