import { BlockList, isIP } from 'node:net';
import { Ajv, type ErrorObject } from 'ajv';
import envSchema from 'env-schema';
import { type Static, Type } from 'typebox';
import { ConfigError } from './config-error.ts';
import {
  MAX_HASH_COST,
  MIN_HASH_COST,
  RECOMMENDED_HASH_COST,
  type ScryptParameters,
  scryptParameters,
} from './core/passwords.ts';

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
  /** PASSWORD_HASH_COST: the scrypt parameters new password hashes are made with. */
  passwordHashing: ScryptParameters;
  /** SECRET_KEY: keys that seal secrets at rest, the sealing one first; empty: see secret-key.ts. */
  secretKeys: Buffer[];
}

export { ConfigError } from './config-error.ts';

type Env = Record<string, string | undefined>;

/** Measured on 2 cores: docs/adr/0004-hot-figures-in-slots.md; at most COUNTER_SLOTS (db/counter-slots.ts). */
const DEFAULT_POOL_SIZE = 8;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MAX_RATE = 1_000_000_000;
const MAX_TIMEOUT_MS = 3_600_000;

const count = (minimum: number, maximum: number, fallback: number) =>
  Type.Integer({ minimum, maximum, default: fallback });
const onOff = (fallback: 'on' | 'off') =>
  Type.Union([Type.Literal('on'), Type.Literal('off')], { default: fallback });
const text = (format: keyof typeof formats) => Type.Optional(Type.String({ format }));

/** The environment, variable by variable: types, ranges, defaults and formats in one place. */
const EnvSchema = Type.Object(
  {
    LOG_LEVEL: Type.Union(
      LOG_LEVELS.map((level) => Type.Literal(level)),
      { default: 'info' },
    ),
    WORKER: onOff('on'),
    HEADERS_TIMEOUT_MS: count(100, MAX_TIMEOUT_MS, 10_000),
    REQUEST_TIMEOUT_MS: count(100, MAX_TIMEOUT_MS, 30_000),
    KEEP_ALIVE_TIMEOUT_MS: count(100, MAX_TIMEOUT_MS, 5_000),
    PORT: count(0, 65535, 8080),
    HOST: Type.String({ default: '127.0.0.1' }),
    DATABASE_URL: Type.String({ format: 'database-url', default: 'sqlite:./data/vouch.db' }),
    DATABASE_POOL_SIZE: count(1, 1000, DEFAULT_POOL_SIZE),
    DATABASE_STATEMENT_TIMEOUT_MS: count(0, MAX_TIMEOUT_MS, 30_000),
    SECRET_KEY: text('secret-keys'),
    PUBLIC_URL: text('http-url'),
    ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
    REDIS_URL: text('redis-url'),
    RATE_LIMIT_PER_MINUTE: count(0, MAX_RATE, 600),
    AUTH_FAILURES_PER_MINUTE: count(0, MAX_RATE, 30),
    ADMIN_RATE_LIMIT_PER_MINUTE: count(0, MAX_RATE, 120),
    PAGES_RATE_LIMIT_PER_MINUTE: count(0, MAX_RATE, 120),
    CLICK_RATE_LIMIT_PER_MINUTE: count(0, MAX_RATE, 120),
    TRUST_PROXY: onOff('off'),
    WEBHOOK_ALLOW_CIDRS: text('cidr-list'),
    SMTP_URL: text('smtp-url'),
    MAX_CONNECTIONS: count(1, 1_000_000, 4096),
    PASSWORD_HASH_COST: count(MIN_HASH_COST, MAX_HASH_COST, RECOMMENDED_HASH_COST),
  },
  { additionalProperties: false },
);
type ParsedEnv = Static<typeof EnvSchema>;

/** Every variable Vouch reads (`.env.example` lists the same, with their defaults). */
export const configVariables: readonly string[] = Object.keys(EnvSchema.properties);

/** A URL with one of `protocols`; why not, when it is not. */
function urlProblem(raw: string, protocols: readonly string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  return protocols.includes(parsed.protocol)
    ? undefined
    : `expected a ${protocols.join(' or ')} URL, got "${raw}"`;
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;
/** A key of 32 bytes, as 64 hex characters or base64. */
const keyBytes = (text: string) => Buffer.from(text, HEX_KEY.test(text) ? 'hex' : 'base64');
const isKey = (text: string) => HEX_KEY.test(text) || (BASE64_KEY.test(text) && keyBytes(text).length === 32);

const listed = (raw: string) =>
  raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

function cidrProblem(cidr: string): string | undefined {
  const [address = '', prefix, extra] = cidr.split('/');
  const family = isIP(address);
  const bits = Number(prefix);
  const ok =
    family !== 0 &&
    extra === undefined &&
    prefix !== undefined &&
    /^\d+$/.test(prefix) &&
    bits <= (family === 4 ? 32 : 128);
  if (ok) new BlockList().addSubnet(address, bits, family === 4 ? 'ipv4' : 'ipv6');
  return ok ? undefined : `"${cidr}" is not a CIDR range such as 127.0.0.0/8`;
}

/**
 * The formats the schema names, each with what a refusal says. `problem` answers undefined for a
 * good value; the schema's validator and the error wording use the same function.
 */
const formats = {
  'database-url': (raw: string) => {
    if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) return undefined;
    if (/^postgres(ql)?:\/\//.test(raw)) return urlProblem(raw, ['postgres:', 'postgresql:']);
    return `expected sqlite:<path>, sqlite::memory: or postgres://…, got "${raw}"`;
  },
  'http-url': (raw: string) => urlProblem(raw, ['http:', 'https:']),
  'redis-url': (raw: string) => urlProblem(raw, ['redis:', 'rediss:']),
  'smtp-url': (raw: string) => urlProblem(raw, ['smtp:', 'smtps:']),
  'cidr-list': (raw: string) => listed(raw).map(cidrProblem).find(Boolean),
  'secret-keys': (raw: string) =>
    listed(raw).every(isKey)
      ? undefined
      : 'expected keys of 32 bytes: 64 hex characters or 44 base64 characters',
} satisfies Record<string, (raw: string) => string | undefined>;

function isFormat(name: unknown): name is keyof typeof formats {
  return typeof name === 'string' && name in formats;
}

/** The validator env-schema runs: strings become numbers, defaults fill in, unknown variables drop. */
const ajv = new Ajv({
  allErrors: false,
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: true,
  strict: false,
});
for (const [name, problem] of Object.entries(formats)) {
  ajv.addFormat(name, { type: 'string', validate: (raw: string) => problem(raw) === undefined });
}

/** The refusal of one variable, worded for an operator, from the schema keyword that refused it. */
function configError(error: ErrorObject, input: Env): ConfigError {
  const variable = error.instancePath.replace(/^\//, '');
  const raw = input[variable] ?? '';
  const schema = Object.entries(EnvSchema.properties).find(([name]) => name === variable)?.[1];
  if (error.keyword === 'format' && isFormat(error.params.format)) {
    return new ConfigError(variable, formats[error.params.format](raw) ?? `"${raw}" is not valid`);
  }
  if (error.keyword === 'minLength') {
    return new ConfigError(variable, `must be at least ${error.params.limit} characters long`);
  }
  if (schema && 'anyOf' in schema) {
    const choices = schema.anyOf.map((literal) => String(literal.const));
    const expected = choices.length === 2 ? choices.join(' or ') : `one of ${choices.join(', ')}`;
    return new ConfigError(variable, `expected ${expected}, got "${raw}"`);
  }
  if (schema && 'minimum' in schema && 'maximum' in schema) {
    return new ConfigError(
      variable,
      `expected a whole number from ${schema.minimum} to ${schema.maximum}, got "${raw}"`,
    );
  }
  return new ConfigError(variable, `${error.message ?? 'is not valid'}, got "${raw}"`);
}

/** Unset and blank are the same: a variable counts only with a value, trimmed. */
function givenValues(env: Env): Env {
  const given: Env = {};
  for (const name of Object.keys(EnvSchema.properties)) {
    const value = env[name]?.trim();
    if (value) given[name] = value;
  }
  return given;
}

function parseEnv(env: Env): ParsedEnv {
  const given = givenValues(env);
  try {
    return envSchema<ParsedEnv>({ schema: EnvSchema, data: { ...given }, env: false, ajv });
  } catch (error) {
    const first = (error as { errors?: ErrorObject[] }).errors?.[0];
    if (first) throw configError(first, given);
    throw error;
  }
}

export function loadConfig(env: Env = process.env): Config {
  const parsed = parseEnv(env);
  // Rules across variables, which a schema of single values cannot state.
  // Node refuses a header timeout longer than the request's.
  if (parsed.HEADERS_TIMEOUT_MS > parsed.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not be longer than REQUEST_TIMEOUT_MS (${parsed.REQUEST_TIMEOUT_MS}), got ${parsed.HEADERS_TIMEOUT_MS}`,
    );
  }
  if (parsed.SECRET_KEY === undefined && !parsed.DATABASE_URL.startsWith('sqlite:')) {
    throw new ConfigError(
      'SECRET_KEY',
      'required with PostgreSQL, the same on every instance (64 hex characters, e.g. `openssl rand -hex 32`)',
    );
  }
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: parsed.DATABASE_STATEMENT_TIMEOUT_MS,
    secretKeys: listed(parsed.SECRET_KEY ?? '').map(keyBytes),
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    adminToken: parsed.ADMIN_TOKEN,
    redisUrl: parsed.REDIS_URL,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: parsed.AUTH_FAILURES_PER_MINUTE,
    adminRateLimitPerMinute: parsed.ADMIN_RATE_LIMIT_PER_MINUTE,
    pagesRateLimitPerMinute: parsed.PAGES_RATE_LIMIT_PER_MINUTE,
    clickRateLimitPerMinute: parsed.CLICK_RATE_LIMIT_PER_MINUTE,
    trustProxy: parsed.TRUST_PROXY === 'on',
    webhookAllowCidrs: listed(parsed.WEBHOOK_ALLOW_CIDRS ?? ''),
    smtpUrl: parsed.SMTP_URL,
    logLevel: parsed.LOG_LEVEL,
    runWorker: parsed.WORKER === 'on',
    headersTimeoutMs: parsed.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: parsed.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: parsed.KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: parsed.MAX_CONNECTIONS,
    passwordHashing: scryptParameters(parsed.PASSWORD_HASH_COST),
  };
}
