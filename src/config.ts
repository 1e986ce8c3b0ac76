import { BlockList, isIP } from 'node:net';

/** Everything the process reads from its environment, validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL: connections per process (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** PostgreSQL: longest a statement may run, in ms; 0 for no limit (DATABASE_STATEMENT_TIMEOUT_MS). */
  databaseStatementTimeoutMs: number;
  publicUrl: string | undefined;
  adminToken: string | undefined;
  redisUrl: string | undefined;
  rateLimitPerMinute: number;
  /** Failed authentications per client address a minute before 429; 0 disables. */
  authFailuresPerMinute: number;
  /** Admin API requests per client address a minute; 0 disables. */
  adminRateLimitPerMinute: number;
  pagesRateLimitPerMinute: number;
  clickRateLimitPerMinute: number;
  trustProxy: boolean;
  webhookAllowCidrs: string[];
  smtpUrl: string | undefined;
  logLevel: string;
  runWorker: boolean;
  /** Server timeouts (ms): request headers, the whole request with its body, keep-alive idle. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Open connections one process accepts; more are closed at once. */
  maxConnections: number;
  /** SECRET_KEY: keys that seal secrets at rest, the sealing one first; empty: see secret-key.ts. */
  secretKeys: Buffer[];
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `expected a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `"${raw}" is not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${raw}"`);
  }
  return raw;
}

function databaseUrl(env: Env): string {
  const raw = optional(env, 'DATABASE_URL') ?? 'sqlite:./data/vouch.db';
  if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) return raw;
  if (/^postgres(ql)?:\/\//.test(raw)) return url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']) ?? raw;
  throw new ConfigError(
    'DATABASE_URL',
    `expected sqlite:<path>, sqlite::memory: or postgres://…, got "${raw}"`,
  );
}

/** Parses `a.b.c.d/n` and `x::y/n` lists; the webhook SSRF guard allows these ranges. */
export function parseCidrs(raw: string | undefined, name = 'WEBHOOK_ALLOW_CIDRS'): string[] {
  if (!raw) return [];
  const cidrs = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const cidr of cidrs) {
    const [address, prefix, extra] = cidr.split('/');
    const family = isIP(address ?? '');
    const bits = Number(prefix);
    const ok =
      family !== 0 &&
      extra === undefined &&
      prefix !== undefined &&
      /^\d+$/.test(prefix) &&
      bits <= (family === 4 ? 32 : 128);
    if (!ok) throw new ConfigError(name, `"${cidr}" is not a CIDR range such as 127.0.0.0/8`);
    new BlockList().addSubnet(address!, bits, family === 4 ? 'ipv4' : 'ipv6');
  }
  return cidrs;
}

function publicUrl(env: Env): string | undefined {
  const raw = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  return raw?.replace(/\/+$/, '');
}

function adminToken(env: Env): string | undefined {
  const raw = optional(env, 'ADMIN_TOKEN');
  if (raw !== undefined && raw.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters long');
  }
  return raw;
}

/** Comma-separated keys of 32 bytes, each as 64 hex characters or base64. */
function secretKeys(env: Env, databaseUrl: string): Buffer[] {
  const raw = optional(env, 'SECRET_KEY');
  if (raw === undefined) {
    if (databaseUrl.startsWith('sqlite:')) return [];
    throw new ConfigError(
      'SECRET_KEY',
      'required with PostgreSQL, the same on every instance (64 hex characters, e.g. `openssl rand -hex 32`)',
    );
  }
  return raw.split(',').map((part) => {
    const text = part.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
    if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(text) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(text))) {
      throw new ConfigError(
        'SECRET_KEY',
        'expected keys of 32 bytes: 64 hex characters or 44 base64 characters',
      );
    }
    return key;
  });
}

function onOff(env: Env, name: string, fallback: 'on' | 'off'): boolean {
  const value = optional(env, name) ?? fallback;
  if (value !== 'on' && value !== 'off') throw new ConfigError(name, `expected on or off, got "${value}"`);
  return value === 'on';
}

/** Measured on 2 cores: docs/adr/0004-hot-figures-in-slots.md; at most COUNTER_SLOTS (db/counter-slots.ts) */
const DEFAULT_POOL_SIZE = 8;

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${logLevels.join(', ')}, got "${logLevel}"`);
  }
  const worker = optional(env, 'WORKER') ?? 'on';
  if (worker !== 'on' && worker !== 'off')
    throw new ConfigError('WORKER', `expected on or off, got "${worker}"`);
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 3_600_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  // Node refuses a header timeout longer than the request's.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`,
    );
  }
  const database = databaseUrl(env);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: database,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    secretKeys: secretKeys(env, database),
    publicUrl: publicUrl(env),
    adminToken: adminToken(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000_000),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 30, 0, 1_000_000_000),
    adminRateLimitPerMinute: integer(env, 'ADMIN_RATE_LIMIT_PER_MINUTE', 120, 0, 1_000_000_000),
    pagesRateLimitPerMinute: integer(env, 'PAGES_RATE_LIMIT_PER_MINUTE', 120, 0, 1_000_000_000),
    clickRateLimitPerMinute: integer(env, 'CLICK_RATE_LIMIT_PER_MINUTE', 120, 0, 1_000_000_000),
    trustProxy: onOff(env, 'TRUST_PROXY', 'off'),
    webhookAllowCidrs: parseCidrs(optional(env, 'WEBHOOK_ALLOW_CIDRS')),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    logLevel,
    runWorker: worker === 'on',
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 3_600_000),
    maxConnections: integer(env, 'MAX_CONNECTIONS', 4096, 1, 1_000_000),
  };
}
