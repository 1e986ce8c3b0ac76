import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { DB } from './tables.ts';

/**
 * A query of the hot path, compiled once instead of on every call: Kysely builds and compiles
 * the SQL anew on each query, which is a quarter of a point read's cost here. Keyed by the
 * dialect adapter, which a transaction shares with its database (a transaction is a new Kysely
 * instance), so the query stays compiled inside transactions too. `build` receives placeholder
 * values; the caller passes the real ones in the same order.
 */
export function preparedQuery<Row, Params extends unknown[]>(build: (db: Kysely<DB>) => Compilable<Row>) {
  const compiled = new WeakMap<object, CompiledQuery<Row>>();
  return async (db: Kysely<DB>, ...parameters: Params): Promise<Row[]> => {
    const key = db.getExecutor().adapter;
    let query = compiled.get(key);
    if (!query) {
      query = build(db).compile();
      compiled.set(key, query);
    }
    const direct = immediateRunners.get(db)?.(query.sql, parameters);
    if (direct?.ran) return direct.rows as Row[];
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}

type ImmediateRunner = (
  sql: string,
  parameters: readonly unknown[],
) => { ran: false } | { ran: true; rows: unknown[] };

/**
 * SQLite answers synchronously, so a prepared query outside any transaction can run at once
 * instead of queueing on Kysely's connection lock through several promise hops: a point read
 * then costs a fifth of what it does through the executor. Registered for a database's own
 * Kysely instance only; transactions (other instances) always go through Kysely.
 */
const immediateRunners = new WeakMap<Kysely<DB>, ImmediateRunner>();

export function runPreparedImmediately(db: Kysely<DB>, runner: ImmediateRunner): void {
  immediateRunners.set(db, runner);
}
