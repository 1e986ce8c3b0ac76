import { CompiledQuery, type Kysely } from 'kysely';
import { isPostgres } from './counter-slots.ts';
import type { BoundStatement } from './prepared.ts';
import type { DB } from './tables.ts';

/**
 * Writes of one module that go with another module's write, in its statement or transaction
 * (a processor event's log rows with the sale it recorded): the writing module runs `statements`
 * only when its own write is made, and calls `written` once both are stored. The writing module
 * never learns their tables; the module that built them reaches it only through its service.
 */
export interface CompanionWrites {
  statements: readonly BoundStatement[];
  written(): void;
}

/**
 * Runs several writes that need nothing from each other's results, in the caller's transaction.
 *
 * On PostgreSQL they go as one statement, the others as data-modifying CTEs of the first
 * (`with w1 as (…), w2 as (…) <first>`): one round trip instead of one each. Inside a
 * transaction every round trip waits for a turn of the server's event loop, which under load is
 * what a sale's time is made of, and the row locks the writes take are held until the commit
 * anyway. PostgreSQL runs the primary statement (the first) before the CTEs, so a caller that
 * takes shared rows in a fixed order passes them first. No two of the writes may touch one row.
 *
 * On SQLite, whose statements are calls within the process, they run one after another.
 */
export async function executeTogether(db: Kysely<DB>, statements: readonly BoundStatement[]): Promise<void> {
  await queryTogether(db, statements);
}

/** As `executeTogether`, answering the rows the first statement returns (its RETURNING). */
export async function queryTogether<Row>(
  db: Kysely<DB>,
  statements: readonly BoundStatement[],
): Promise<Row[]> {
  const writes = statements.filter((statement) => statement.sql !== '');
  if (writes.length === 0) return [];
  if (!isPostgres(db) || writes.length === 1) {
    let rows: Row[] = [];
    for (const [i, write] of writes.entries()) {
      const result = await db.executeQuery<Row>(CompiledQuery.raw(write.sql, [...write.parameters]));
      if (i === 0) rows = result.rows;
    }
    return rows;
  }
  const parameters: unknown[] = [];
  const texts = writes.map((write) => {
    const offset = parameters.length;
    parameters.push(...write.parameters);
    return renumbered(write, offset);
  });
  const [primary, ...rest] = texts;
  const sql = `with ${rest.map((text, i) => `w${i + 1} as (${text})`).join(', ')} ${primary}`;
  return (await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters))).rows;
}

/** Renumbered texts by statement text and offset: a sale renumbers the same few on every call. */
const renumberedTexts = new Map<string, { placeholders: number; byOffset: Map<number, string> }>();
const MAX_RENUMBERED = 4_096;

/**
 * The statement's placeholders `$1…$n` shifted by `offset`. Kysely writes every value as a
 * placeholder (never a `$` inside a literal of these statements), which the count check guards.
 */
export function renumbered(statement: BoundStatement, offset: number): string {
  let known = renumberedTexts.get(statement.sql);
  if (!known) {
    if (renumberedTexts.size >= MAX_RENUMBERED) renumberedTexts.clear();
    known = { placeholders: new Set(statement.sql.match(/\$\d+/g)).size, byOffset: new Map() };
    renumberedTexts.set(statement.sql, known);
  }
  if (known.placeholders !== statement.parameters.length)
    throw new Error('executeTogether: a statement whose placeholders do not match its values');
  let text = known.byOffset.get(offset);
  if (text === undefined) {
    text = statement.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    known.byOffset.set(offset, text);
  }
  return text;
}
