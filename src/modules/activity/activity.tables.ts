import type { Generated } from 'kysely';

/** The activity log (migration 0031). */
export interface ActivityLogTable {
  id: Generated<number>;
  program_id: number;
  actor_kind: 'user' | 'key';
  actor: string;
  action: string;
  subject: string | null;
  changes: string | null;
  address: string | null;
  created_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    activity_log: ActivityLogTable;
  }
}
