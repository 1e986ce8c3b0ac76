/**
 * Start-up failures in one line that names the variable to fix and the cause (issue 9):
 * `DATABASE_URL: cannot connect to 127.0.0.1:5432 (connection refused)`.
 */

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
}

const causes: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ECONNRESET: 'connection reset',
  '28P01': 'password authentication failed',
  '28000': 'authentication refused',
  '3D000': 'database does not exist',
  SQLITE_CANTOPEN: 'cannot open the database file',
  SQLITE_NOTADB: 'the file is not a SQLite database',
  SQLITE_READONLY: 'the database file is read-only',
  EACCES: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'a parent is not a directory',
};

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as ErrorLike;
  if (typeof code === 'string') return code;
  // An AggregateError (IPv4 and IPv6 both refused) carries its causes inside.
  if (Array.isArray(errors)) return errors.map(codeOf).find(Boolean);
  return undefined;
}

const firstLine = (error: unknown) =>
  String((error as ErrorLike)?.message ?? error)
    .split('\n')[0]
    ?.trim() || 'unknown error';

/** Where a database URL points, without its credentials. */
function placeOf(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) return databaseUrl.slice('sqlite:'.length);
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'the database';
  }
}

export function databaseFailure(databaseUrl: string, error: unknown): string {
  const code = codeOf(error);
  const cause = (code && causes[code]) ?? firstLine(error);
  const place = placeOf(databaseUrl);
  const verb = databaseUrl.startsWith('sqlite:') ? 'cannot open' : 'cannot connect to';
  return `DATABASE_URL: ${verb} ${place} (${cause})`;
}

export function listenFailure(host: string, port: number, error: unknown): string {
  const code = codeOf(error);
  if (code === 'EADDRINUSE') return `PORT: ${port} is already in use on ${host}`;
  if (code === 'EACCES') return `PORT: not allowed to listen on ${port} (permission denied)`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return `HOST: cannot listen on ${host} (address not available)`;
  return `PORT: cannot listen on ${host}:${port} (${firstLine(error)})`;
}
