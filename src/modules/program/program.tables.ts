/** A program's uploaded logo (migration 0036): one row per program, read only when served. */
export interface ProgramLogosTable {
  program_id: number;
  digest: string;
  content_type: string;
  size: number;
  body: Buffer;
  updated_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    program_logos: ProgramLogosTable;
  }
}
