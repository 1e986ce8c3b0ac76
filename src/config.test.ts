import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseEnv } from 'node:util';
import { ConfigError, configVariables, loadConfig } from './config.ts';

test('defaults follow the contract', () => {
  const config = loadConfig({});
  assert.deepEqual(
    {
      port: config.port,
      host: config.host,
      db: config.databaseUrl,
      rate: config.rateLimitPerMinute,
      admin: config.adminToken,
    },
    { port: 8080, host: '127.0.0.1', db: 'sqlite:./data/vouch.db', rate: 600, admin: undefined },
  );
  assert.deepEqual(config.webhookAllowCidrs, []);
  assert.equal(config.databasePoolSize, 8);
  assert.equal(config.databaseStatementTimeoutMs, 30_000);
  assert.deepEqual(config.passwordHashing, { N: 2 ** 17, r: 8, p: 1 }, "OWASP's scrypt parameters");
});

test('PASSWORD_HASH_COST is the exponent of scrypt N', () => {
  assert.deepEqual(loadConfig({ PASSWORD_HASH_COST: '12' }).passwordHashing, { N: 4096, r: 8, p: 1 });
});

test('the PostgreSQL pool size and statement timeout are read', () => {
  const config = loadConfig({ DATABASE_POOL_SIZE: '4', DATABASE_STATEMENT_TIMEOUT_MS: '0' });
  assert.equal(config.databasePoolSize, 4);
  assert.equal(config.databaseStatementTimeoutMs, 0);
});

const bad: [string, Record<string, string>][] = [
  ['PORT', { PORT: 'eighty' }],
  ['PORT', { PORT: '70000' }],
  ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
  ['PUBLIC_URL', { PUBLIC_URL: 'not a url' }],
  ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }],
  ['REDIS_URL', { REDIS_URL: 'http://127.0.0.1:6379' }],
  ['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: '-1' }],
  ['WEBHOOK_ALLOW_CIDRS', { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/33' }],
  ['WEBHOOK_ALLOW_CIDRS', { WEBHOOK_ALLOW_CIDRS: 'localhost' }],
  ['SMTP_URL', { SMTP_URL: 'mailto:a@b.c' }],
  ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
  ['HEADERS_TIMEOUT_MS', { HEADERS_TIMEOUT_MS: '40000', REQUEST_TIMEOUT_MS: '30000' }],
  ['KEEP_ALIVE_TIMEOUT_MS', { KEEP_ALIVE_TIMEOUT_MS: '0' }],
  ['MAX_CONNECTIONS', { MAX_CONNECTIONS: 'many' }],
  ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '0' }],
  ['PASSWORD_HASH_COST', { PASSWORD_HASH_COST: '9' }],
  ['PASSWORD_HASH_COST', { PASSWORD_HASH_COST: '21' }],
  ['DATABASE_STATEMENT_TIMEOUT_MS', { DATABASE_STATEMENT_TIMEOUT_MS: 'soon' }],
  ['SECRET_KEY', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' }],
  ['SECRET_KEY', { SECRET_KEY: 'short' }],
  ['SECRET_KEY', { SECRET_KEY: `${'ab'.repeat(32)},nope` }],
];
for (const [variable, env] of bad) {
  test(`${JSON.stringify(env)} is refused, naming ${variable}`, () => {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.variable, variable);
        assert.match(error.message, new RegExp(`^${variable}: `));
        return true;
      },
    );
  });
}

test('good values are read', () => {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: 'postgres://u@db:5432/vouch',
    PUBLIC_URL: 'https://vouch.example.com/',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8, ::1/128',
    RATE_LIMIT_PER_MINUTE: '0',
    SMTP_URL: 'smtp://127.0.0.1:2525',
    SECRET_KEY: `${'ab'.repeat(32)}, ${Buffer.alloc(32, 7).toString('base64')}`,
  });
  assert.deepEqual(config.secretKeys, [Buffer.alloc(32, 0xab), Buffer.alloc(32, 7)]);
  assert.equal(config.publicUrl, 'https://vouch.example.com');
  assert.deepEqual(config.webhookAllowCidrs, ['127.0.0.0/8', '::1/128']);
  assert.equal(config.rateLimitPerMinute, 0);
});

test('blank values count as unset, and values are trimmed', () => {
  const config = loadConfig({ PORT: '  ', LOG_LEVEL: '', ADMIN_TOKEN: ' ', HOST: ' 0.0.0.0 ' });
  assert.equal(config.port, 8080);
  assert.equal(config.logLevel, 'info');
  assert.equal(config.adminToken, undefined);
  assert.equal(config.host, '0.0.0.0');
});

test('.env.example lists every variable, with the defaults the schema gives', () => {
  const example = parseEnv(readFileSync(new URL('../.env.example', import.meta.url), 'utf8'));
  assert.deepEqual(Object.keys(example).sort(), [...configVariables].sort());
  assert.deepEqual(loadConfig(example), loadConfig({}));
});
