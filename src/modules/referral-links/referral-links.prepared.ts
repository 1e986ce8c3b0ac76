import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';

/**
 * A hot-path query compiled once per database, also inside transactions: like db/prepared.ts,
 * but keyed by the dialect adapter, which a transaction shares with its database (a transaction
 * is a new Kysely instance, so keying by instance would compile again in every one). Shared by
 * the affiliate and refer-a-friend modules. `build` gets placeholder values; callers pass the
 * real ones in the same order.
 */
export function hotQuery<Row, Params extends unknown[]>(build: (db: Kysely<DB>) => Compilable<Row>) {
  const compiled = new WeakMap<object, CompiledQuery<Row>>();
  return async (db: Kysely<DB>, ...parameters: Params): Promise<Row[]> => {
    const key = db.getExecutor().adapter;
    let query = compiled.get(key);
    if (!query) {
      query = build(db).compile();
      compiled.set(key, query);
    }
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
