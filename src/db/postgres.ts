import { PostgresDialect } from 'kysely';
import pg from 'pg';
import { takeCounterSlot } from './counter-slots.ts';
import { ARRAY_ROWS, PLANNED_EACH_CALL } from './prepared.ts';
import { type FieldSetup, runStatement } from './statement-query.ts';

/**
 * int8 comes back as a number when a double holds it exactly (ids, counts, most amounts) and as
 * a bigint when it does not (micro-units of amounts near 10^12), so money is never rounded on
 * the way out; money code normalizes with `microsFrom`. Any integer text above 2^53 − 1 parses
 * to a double that is not a safe integer, so the check is exact.
 */
export function parseInt8(value: string): number | bigint {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : BigInt(value);
}
pg.types.setTypeParser(pg.types.builtins.INT8, parseInt8);

const DML = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Statement texts given a name at most. A connection keeps every statement it prepared until it
 * closes, and some texts vary with a list's length (`id in ($1, $2, …)`), so past this many the
 * rest go unnamed, planned on each call as before.
 */
const MAX_NAMED_STATEMENTS = 2_000;

/**
 * Kysely sends unnamed statements, which PostgreSQL plans on every call. Naming each distinct
 * DML text lets every pooled connection prepare it once.
 */
function namingStatements(pool: pg.Pool): pg.Pool {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name && names.size < MAX_NAMED_STATEMENTS) {
      name = `v${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
  // Result set-ups by statement name (db/statement-query.ts): the names are this pool's.
  const setups = new Map<string, FieldSetup>();
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [text, values] = args;
      if (
        typeof text === 'string' &&
        Array.isArray(values) &&
        args.length === 2 &&
        !text.startsWith(PLANNED_EACH_CALL)
      ) {
        // Marked statements answer arrays of column values (db/prepared.ts).
        const arrays = text.startsWith(ARRAY_ROWS);
        if (arrays || DML.test(text)) {
          return runStatement(query, text, values, {
            name: nameOf(text),
            ...(arrays ? { rowMode: 'array' as const } : {}),
            setups,
          });
        }
      }
      return query(...args);
    };
  });
  return pool;
}

/** A connection that takes the next counter slot as it connects (db/counter-slots.ts). */
class SlottedClient extends pg.Client {
  constructor(config: pg.ClientConfig) {
    super({ ...config, options: [config.options, takeCounterSlot()].filter(Boolean).join(' ') });
  }
}

export interface PostgresOptions {
  /** Connections of the pool (DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** Longest a statement may run, in milliseconds, 0 for no limit (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs?: number;
}

/**
 * `postgres://user@host:port/db`, optionally `?schema=name`: the schema is created on demand and
 * put first on the search path (the tests give every file its own schema).
 */
export async function openPostgres(
  url: string,
  { poolSize = 8, statementTimeoutMs = 0 }: PostgresOptions = {},
): Promise<{ dialect: PostgresDialect; pool: pg.Pool; schema: string | null }> {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('DATABASE_URL: invalid schema name');
  const settings = [
    ...(schema ? [`-c search_path=${schema}`] : []),
    ...(statementTimeoutMs > 0 ? [`-c statement_timeout=${statementTimeoutMs}`] : []),
  ];
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max: poolSize,
    // Connections stay open once made: below `min`, pg-pool arms no idle timer on each release
    // (a setTimeout and a clearTimeout per query, about 1 % of a request's CPU here).
    min: poolSize,
    // The pool constructs each client with its own options (its typings omit the argument).
    Client: SlottedClient as unknown as new () => pg.Client,
    ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
  });
  const dialect = new PostgresDialect({ pool: namingStatements(pool) });
  if (schema) {
    // Instances starting together race on IF NOT EXISTS; the loser's unique violation is harmless.
    await pool.query(`create schema if not exists ${schema}`).catch((error: { code?: string }) => {
      if (error.code !== '23505' && error.code !== '42P06') throw error;
    });
  }
  return { dialect, pool, schema };
}
