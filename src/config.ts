import { BlockList, isIP } from 'node:net';

/** Everything the process reads from its environment, validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  publicUrl: string | undefined;
  adminToken: string | undefined;
  redisUrl: string | undefined;
  rateLimitPerMinute: number;
  webhookAllowCidrs: string[];
  smtpUrl: string | undefined;
  logLevel: string;
  runWorker: boolean;
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

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${logLevels.join(', ')}, got "${logLevel}"`);
  }
  const worker = optional(env, 'WORKER') ?? 'on';
  if (worker !== 'on' && worker !== 'off')
    throw new ConfigError('WORKER', `expected on or off, got "${worker}"`);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: databaseUrl(env),
    publicUrl: publicUrl(env),
    adminToken: adminToken(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000_000),
    webhookAllowCidrs: parseCidrs(optional(env, 'WEBHOOK_ALLOW_CIDRS')),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    logLevel,
    runWorker: worker === 'on',
  };
}
