/** Tables of click tracking (migration 0015). */
export interface ClickSaltsTable {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  salt: string;
}

/** A visitor counted on a link: a salted hash, never an address. */
export interface ClickVisitorsTable {
  program_id: number;
  link_id: number;
  visitor: string;
  counted_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    click_salts: ClickSaltsTable;
    click_visitors: ClickVisitorsTable;
  }
}
