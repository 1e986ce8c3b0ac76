/**
 * Where each program's notices stand (migration 0027): per kind, the last row announced, in
 * creation order. Written only by the worker's notices pass.
 */
export interface NoticeCursorsTable {
  program_id: number;
  /** `partner_welcome`, `new_commissions` or `customer_welcome`. */
  kind: string;
  created_at: string;
  last_id: number;
}

declare module '../../db/tables.ts' {
  interface DB {
    notice_cursors: NoticeCursorsTable;
  }
}
