import { createRequire } from 'node:module';
import type BetterSqlite from 'better-sqlite3';

/**
 * The better-sqlite3 build this Node can run (docs/adr/0063). Line 12 subclasses `node::ObjectWrap`,
 * whose header from Node 24.19 on registers a cleanup hook per object and removes it in the
 * destructor; a statement or database collected by a GC without an entered context (an idle GC,
 * or the teardown at exit) then aborts the process: `Assertion failed: (env) != nullptr`. Line 13
 * is built on Node-API instead and ships its binaries in the package, but needs Node 22 and
 * crashes on Node 20. Node 20 keeps 12 (installed as the optional `better-sqlite3-node20`); every
 * newer Node runs 13. Both have the same API.
 */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** The oldest Node major that loads `better-sqlite3` (13) rather than `better-sqlite3-node20`. */
export const NODE_API_DRIVER_FROM = 22;
export const SQLITE_DRIVER = NODE_MAJOR >= NODE_API_DRIVER_FROM ? 'better-sqlite3' : 'better-sqlite3-node20';

function loadDriver(): typeof BetterSqlite {
  const require = createRequire(import.meta.url);
  try {
    return require(SQLITE_DRIVER);
  } catch (error) {
    if (
      SQLITE_DRIVER === 'better-sqlite3-node20' &&
      (error as { code?: unknown }).code === 'MODULE_NOT_FOUND'
    ) {
      throw new Error(
        'better-sqlite3 12 (the optional better-sqlite3-node20) is not installed: its build failed during npm install. On Node 20 it needs python3, make and a C++ compiler; Node 22 or newer needs no build.',
      );
    }
    throw error;
  }
}

/** The SQLite driver's Database class (better-sqlite3). */
export const SqliteDatabase = loadDriver();
export type SqliteDatabase = BetterSqlite.Database;
export type SqliteStatement<Parameters extends unknown[] = unknown[], Row = unknown> = BetterSqlite.Statement<
  Parameters,
  Row
>;
