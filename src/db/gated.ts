import { CompiledQuery, type Kysely } from 'kysely';
import type { BoundStatement } from './prepared.ts';
import type { DB } from './tables.ts';
import { renumbered } from './together.ts';

/**
 * PostgreSQL: several writes as one statement that applies whole or not at all, and says which,
 * without failing in the database (ADR 0053). A write decided without a lock is guarded (an
 * UPDATE … RETURNING of one row that finds the row only while it is as it was read) and holds
 * business keys (a sale's `key`, a customer's `id`, `key` and `email`). Instead of aborting the
 * statement when a guard finds nothing or a key is taken (which PostgreSQL logs as an ERROR),
 * every write is made conditional: the keyed insert runs only when every guard held, and the
 * other writes only when the keyed insert wrote all its rows. The statement answers what happened.
 *
 * A keyed insert of one row skips a taken key (`ON CONFLICT DO NOTHING`, which waits for a
 * concurrent holder to commit). One of several rows could be skipped alone, leaving the others
 * written without their other writes, so a key taken then still aborts the statement: only
 * coalesced writes racing an identical request meet it, and they are written alone after it.
 */
export interface GatedWrite {
  /** UPDATE … RETURNING statements of one row each, run first, in the order given. */
  guards: readonly BoundStatement[];
  /** A SELECT that must find nothing for the write to apply. */
  absent?: BoundStatement | undefined;
  /** The multi-row INSERT … VALUES of the rows holding the business keys, and its row count. */
  keyed: { statement: BoundStatement; rows: number };
  /** The other writes (INSERT … VALUES, INSERT … SELECT, UPDATE), taken in the order given. */
  statements: readonly BoundStatement[];
}

/** Written; a guard found its row changed (decide again); or a business key is taken. */
export type GatedOutcome = 'written' | 'changed' | 'taken';

/** A gated write that did not apply, for callers whose writes answer by rejecting (coalesced ones). */
export class NotWrittenError extends Error {
  constructor(readonly outcome: Exclude<GatedOutcome, 'written'>) {
    super(outcome === 'taken' ? 'a business key is taken' : 'a guarded row changed since it was read');
  }
}

/** `executeGated`, rejecting with NotWrittenError unless written. */
export async function executeGatedOrThrow(db: Kysely<DB>, write: GatedWrite): Promise<void> {
  const outcome = await executeGated(db, write);
  if (outcome !== 'written') throw new NotWrittenError(outcome);
}

export async function executeGated(db: Kysely<DB>, write: GatedWrite): Promise<GatedOutcome> {
  const parameters: unknown[] = [];
  const bind = (statement: BoundStatement) => {
    const offset = parameters.length;
    parameters.push(...statement.parameters);
    return renumbered(statement, offset);
  };
  const ctes: string[] = [];
  const guardNames = write.guards.map((guard, i) => {
    ctes.push(`gate_g${i} as (${bind(guard)})`);
    return `gate_g${i}`;
  });
  const held = guardNames.map((name) => `exists (select 1 from ${name})`);
  if (write.absent) {
    ctes.push(`gate_a as (${bind(write.absent)})`);
    held.push('not exists (select 1 from gate_a)');
  }
  const current = held.length > 0 ? held.join(' and ') : 'true';
  const skipTaken = write.keyed.rows === 1 ? ' on conflict do nothing' : '';
  ctes.push(`gate_k as (${gatedWrite(bind(write.keyed.statement), current, `${skipTaken} returning 1`)})`);
  const complete = `(select count(*) from gate_k) = ${write.keyed.rows}`;
  const names = write.statements.map((statement, i) => {
    ctes.push(`gate_w${i} as (${gatedWrite(bind(statement), complete, ' returning 1')})`);
    return `gate_w${i}`;
  });
  // Each write is counted in the order given: the subqueries run in that order, and so take
  // their rows' locks in the order every writer takes them (db/together.ts).
  const counted = ['gate_k', ...names].map((name) => `(select count(*) from ${name}) as ${name}`);
  const sql = `with ${ctes.join(', ')} select (${current}) as current, ${counted.join(', ')}`;
  const result = await db.executeQuery<{ current: boolean; gate_k: number | bigint | string }>(
    CompiledQuery.raw(sql, parameters),
  );
  const row = result.rows[0];
  if (!row?.current) return 'changed';
  return Number(row.gate_k) === write.keyed.rows ? 'written' : 'taken';
}

/**
 * `statement` (as Kysely writes it) made to write only when `condition` holds, with `suffix`
 * (`returning 1`, `on conflict do nothing`) added where its form allows.
 */
export function gatedWrite(statement: string, condition: string, suffix: string): string {
  const scanned = topLevel(statement);
  if (/^insert into /i.test(statement)) return gatedInsert(statement, scanned, condition, suffix);
  if (/^update /i.test(statement)) return gatedUpdate(statement, scanned, condition, suffix);
  throw new Error(`gatedWrite: an unexpected statement: ${statement.slice(0, 60)}`);
}

function gatedInsert(statement: string, scanned: Scanned, condition: string, suffix: string): string {
  const table = /^insert into ("[^"]+")/i.exec(statement)?.[1];
  const columnsAt = statement.indexOf('(');
  const columnsEnd = scanned.closing.get(columnsAt);
  if (!table || columnsEnd === undefined) throw new Error('gatedWrite: an insert without its columns');
  const head = statement.slice(0, columnsEnd + 1);
  const columns = statement.slice(columnsAt + 1, columnsEnd).split(', ');
  const rest = statement.slice(columnsEnd + 1);
  const [returning, onConflict] = [
    scanned.find(' returning ', columnsEnd),
    scanned.find(' on conflict ', columnsEnd),
  ];
  const tailAt = Math.min(...[returning, onConflict, statement.length].filter((at) => at >= 0));
  const tail = statement.slice(tailAt);
  const ownSuffix = returning >= 0 ? suffix.replace(/ returning 1$/, '') : suffix;
  if (rest.startsWith(' select ')) {
    // Its values already come typed from a FROM clause (an events insert).
    const select = statement.slice(columnsEnd + 1, tailAt);
    return `${head} select * from (${select}) as gated where ${condition}${tail}${ownSuffix}`;
  }
  if (!rest.startsWith(' values (')) throw new Error('gatedWrite: an insert of an unexpected form');
  const tuples: string[] = [];
  let at = columnsEnd + ' values '.length + 1;
  while (at < tailAt && statement[at] === '(') {
    const end = scanned.closing.get(at);
    if (end === undefined) throw new Error('gatedWrite: an unbalanced insert');
    tuples.push(statement.slice(at + 1, end));
    at = end + 3; // past "), "
  }
  if (tuples.length === 1) {
    // One row: its placeholders take their types from the insert's columns.
    return `${head} select ${tuples[0]} where ${condition}${tail}${ownSuffix}`;
  }
  // Several rows: VALUES in a FROM clause would type untyped placeholders as text, so a first row
  // of typed nulls gives each column the table's type, and is left out.
  const typed = columns.map((column) => `(null::${table}).${column}`).join(', ');
  const rows = [`(false, ${typed})`, ...tuples.map((tuple) => `(true, ${tuple})`)].join(', ');
  const picked = columns.map((column) => `"v".${column}`).join(', ');
  return (
    `${head} select ${picked} from (values ${rows}) as "v"("vouch_keep", ${columns.join(', ')})` +
    ` where "v"."vouch_keep" and ${condition}${tail}${ownSuffix}`
  );
}

function gatedUpdate(statement: string, scanned: Scanned, condition: string, suffix: string): string {
  const returning = scanned.find(' returning ', 0);
  const body = returning >= 0 ? statement.slice(0, returning) : statement;
  const tail = returning >= 0 ? statement.slice(returning) : suffix.replace(/ on conflict do nothing/, '');
  const where = scanned.find(' where ', 0);
  if (where < 0 || (returning >= 0 && where > returning)) return `${body} where ${condition}${tail}`;
  const start = where + ' where '.length;
  return `${body.slice(0, start)}(${body.slice(start)}) and ${condition}${tail}`;
}

interface Scanned {
  /** Each top-level-or-nested opening parenthesis's closing one. */
  closing: Map<number, number>;
  /** The first `word` at parenthesis depth 0, outside quotes, from `from`; -1 when absent. */
  find(word: string, from: number): number;
}

/** Parentheses and depth-0 positions of `statement`, skipping quoted text and identifiers. */
function topLevel(statement: string): Scanned {
  const closing = new Map<number, number>();
  const depthAt: number[] = [];
  const open: number[] = [];
  let quote: string | undefined;
  for (let i = 0; i < statement.length; i++) {
    const c = statement[i];
    depthAt[i] = open.length;
    if (quote) {
      if (c === quote) quote = undefined;
      depthAt[i] = -1;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      depthAt[i] = -1;
    } else if (c === '(') open.push(i);
    else if (c === ')') {
      const start = open.pop();
      if (start !== undefined) closing.set(start, i);
    }
  }
  return {
    closing,
    find(word, from) {
      let at = statement.indexOf(word, from);
      while (at >= 0 && depthAt[at] !== 0) at = statement.indexOf(word, at + 1);
      return at;
    },
  };
}
