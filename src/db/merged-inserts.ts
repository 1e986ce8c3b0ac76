import type { BoundStatement } from './prepared.ts';
import { renumbered } from './together.ts';

/**
 * `insert into "table" (columns) values (…), (…)` with only placeholders in its rows, and what
 * follows them (` on conflict …`, ` returning …`), as Kysely writes a rows insert.
 */
const ROWS_INSERT =
  /^(insert into "[^"]+" \([^)]*\)) values ((?:\(\$\d+(?:, \$\d+)*\)(?:, )?)+)((?: on conflict | returning ).*)?$/s;

/** Inserts of one form as they are merged: the text before and after the rows, and the rows. */
interface Merged {
  head: string;
  tail: string;
  rows: string[];
  parameters: unknown[];
}

/**
 * Row inserts of one form (the same table, columns and tail) given as separate statements, as one
 * multi-row insert: for writes coalesced from several requests (a batch of sales, each with its
 * companion rows), PostgreSQL then parses and plans one insert per table instead of one per
 * request. Merged inserts take the place of their first; statements of another form pass as they
 * are. Rows keep their order.
 */
export function mergedInserts(statements: readonly BoundStatement[]): BoundStatement[] {
  const byForm = new Map<string, Merged>();
  const out: (BoundStatement | Merged)[] = [];
  for (const statement of statements) {
    const parsed = ROWS_INSERT.exec(renumbered(statement, 0));
    if (!parsed) {
      out.push(statement);
      continue;
    }
    const [, head = '', , tail = ''] = parsed;
    const form = `${head}\u0000${tail}`;
    let entry = byForm.get(form);
    if (!entry) {
      entry = { head, tail, rows: [], parameters: [] };
      byForm.set(form, entry);
      out.push(entry);
    }
    const rows = ROWS_INSERT.exec(renumbered(statement, entry.parameters.length))?.[2] ?? '';
    entry.rows.push(rows.replace(/, $/, ''));
    entry.parameters.push(...statement.parameters);
  }
  return out.map((item) =>
    'sql' in item
      ? item
      : { sql: `${item.head} values ${item.rows.join(', ')}${item.tail}`, parameters: item.parameters },
  );
}
