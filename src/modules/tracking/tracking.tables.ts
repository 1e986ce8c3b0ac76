import type { Generated } from 'kysely';

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

/** A reported click and the landing URL it came with (migration 0035), for the fraud rules. */
export interface ClicksTable {
  id: Generated<number>;
  program_id: number;
  /** The click id answered to the visitor (`vouch_click` cookie, `context.click_id`). */
  public_id: string;
  link_id: number;
  owner_kind: string;
  owner_id: number;
  landing_url: string | null;
  clicked_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    click_salts: ClickSaltsTable;
    click_visitors: ClickVisitorsTable;
    clicks: ClicksTable;
  }
}
