import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { rotateSecrets } from '../src/cli/commands/secrets-rotate.ts';
import { loadConfig } from '../src/config.ts';
import { hashPassword } from '../src/core/passwords.ts';
import { SecretBox } from '../src/core/secret-box.ts';
import { ApiKeyResolver } from '../src/modules/api-keys/api-keys.service.ts';
import { checkPartnerPassword } from '../src/modules/partners/partners.service.ts';
import { sealWebhookSecrets } from '../src/modules/webhooks/webhooks.service.ts';
import { ADMIN_TOKEN, describeEachDatabase, startServer, type TestServer, testDialects } from './harness.ts';
import { itemAt } from './items.ts';

/** Issue 9: secrets stay secret, credentials cannot be guessed at speed, e-mails ignore case. */
describeEachDatabase('secrets and credentials', (server) => {
  test('a read-only key sees webhooks without their signing secret; a full key sees it', async () => {
    const p = await server().newProgram('affiliate');
    const created = await server().request('POST', '/v1/webhooks', {
      token: p.token,
      body: { name: 'hook', url: 'https://hooks.example.com/x', events: ['partner.created'] },
    });
    assert.equal(created.status, 200, created.text);
    const { key, signature = '' } = created.body.data;
    assert.match(signature, /^[A-Za-z0-9]{32}$/);
    const full = await server().request('GET', `/v1/webhooks/${key}`, { token: p.token });
    assert.equal(full.body.data.signature, signature);
    const read = await server().request('GET', `/v1/webhooks/${key}`, { token: p.readToken });
    assert.equal(read.status, 200);
    assert.equal('signature' in read.body.data, false);
    assert.doesNotMatch(read.text, new RegExp(signature));
    const list = await server().request('GET', '/v1/webhooks', { token: p.readToken });
    assert.equal(list.body.data.length, 1);
    assert.equal('signature' in itemAt(list.body.data), false);
    assert.doesNotMatch(list.text, new RegExp(signature));
  });

  test('webhook secrets are sealed at rest with the server key; older plain ones are sealed by the pass', async () => {
    const p = await server().newProgram('referral');
    const created = await server().request('POST', '/v1/webhooks', {
      token: p.token,
      body: { name: 'hook', url: 'https://hooks.example.com/y', events: ['customer.created'] },
    });
    const { key, signature = '' } = created.body.data;
    const db = server().deps.database.db;
    const stored = async () =>
      (await db.selectFrom('webhooks').select('signature').where('key', '=', key).executeTakeFirstOrThrow())
        .signature;
    const sealed = await stored();
    assert.match(sealed, /^enc:v1:[0-9a-f]{8}:/);
    assert.ok(!sealed.includes(signature));
    // A secret stored before encryption reads as is, and the start-up pass seals it.
    await db.updateTable('webhooks').set({ signature: 'plainOldSecret' }).where('key', '=', key).execute();
    const legacy = await server().request('GET', `/v1/webhooks/${key}`, { token: p.token });
    assert.equal(legacy.body.data.signature, 'plainOldSecret');
    assert.ok((await sealWebhookSecrets(server().deps)) >= 1);
    assert.match(await stored(), /^enc:v1:/);
    const after = await server().request('GET', `/v1/webhooks/${key}`, { token: p.token });
    assert.equal(after.body.data.signature, 'plainOldSecret');
  });

  test('rotating SECRET_KEY (new,old) seals every secret with the new key', async () => {
    const p = await server().newProgram('affiliate');
    const created = await server().request('POST', '/v1/webhooks', {
      token: p.token,
      body: { name: 'hook', url: 'https://hooks.example.com/z', events: ['partner.created'] },
    });
    const fresh = 'ab'.repeat(32);
    const [current] = server().deps.config.secretKeys;
    assert.ok(current, 'the test server seals with a SECRET_KEY');
    const config = loadConfig({
      DATABASE_URL: server().deps.config.databaseUrl,
      SECRET_KEY: `${fresh},${current.toString('hex')}`,
    });
    const rotated = { ...server().deps, config, secrets: new SecretBox(config.secretKeys) };
    const result = await rotateSecrets(rotated);
    assert.ok(result.resealed >= 1);
    const row = await server()
      .deps.database.db.selectFrom('webhooks')
      .select('signature')
      .where('key', '=', created.body.data.key)
      .executeTakeFirstOrThrow();
    assert.equal(new SecretBox([Buffer.from(fresh, 'hex')]).open(row.signature), created.body.data.signature);
  });

  test('partner e-mails are unique and found case-insensitively, stored as given', async () => {
    const p = await server().newProgram('affiliate');
    const first = await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'Ann@Example.com' },
    });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.email, 'Ann@Example.com');
    const second = await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'ann@example.COM' },
    });
    assert.equal(second.status, 422, second.text);
    assert.deepEqual(second.error.errors, { email: ['The email has already been taken.'] });
    const found = await server().request('GET', '/v1/partner?email=ANN@example.com', { token: p.token });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.data.id, first.body.data.id);
    const other = await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'bob@example.com' },
    });
    const renamed = await server().request('PUT', `/v1/partners/${other.body.data.id}`, {
      token: p.token,
      body: { email: 'ANN@EXAMPLE.COM' },
    });
    assert.equal(renamed.status, 422, renamed.text);
    assert.ok(renamed.error.errors.email, renamed.text);
  });

  test('customer e-mails are unique case-insensitively in both program types', async () => {
    for (const type of ['affiliate', 'referral'] as const) {
      const p = await server().newProgram(type);
      const partner = type === 'affiliate' ? { partner: { key: 'pk' } } : {};
      if (type === 'affiliate') {
        const created = await server().request('POST', '/v1/partners', {
          token: p.token,
          body: { email: 'pk@example.com', key: 'pk' },
        });
        assert.equal(created.status, 201, created.text);
      }
      const first = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { key: 'c1', email: 'Cat@Example.com', ...partner },
      });
      assert.ok(first.status === 200 || first.status === 201, `${type}: ${first.text}`);
      assert.equal(first.body.data.email, 'Cat@Example.com');
      const second = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { key: 'c2', email: 'cat@example.com', ...partner },
      });
      assert.equal(second.status, 422, `${type}: ${second.text}`);
      assert.deepEqual(second.error.errors.email, ['The email has already been taken.'], type);
    }
  });

  test('valid keys are cached apart from misses: a flood of wrong tokens evicts no valid key', async () => {
    const p = await server().newProgram('newsletter');
    const resolver = new ApiKeyResolver(server().deps, { ttlMs: 60_000, validCapacity: 4, missCapacity: 8 });
    const program = await resolver.resolve(p.token);
    assert.equal(program?.id, p.id);
    for (let i = 0; i < 200; i++) {
      assert.equal(await resolver.resolve(`vk_${String(i).padStart(12, 'A')}_${'b'.repeat(32)}`), null);
    }
    assert.deepEqual(resolver.cached, { valid: 1, misses: 8 });
    // Still answered from the cache: the key row is gone, yet the resolver does not ask again.
    await server()
      .deps.database.db.updateTable('api_keys')
      .set({ revoked_at: '2026-01-01T00:00:00.000000Z' })
      .execute();
    assert.equal((await resolver.resolve(p.token))?.id, p.id);
    assert.equal(await new ApiKeyResolver(server().deps).resolve(p.token), null);
  });

  test('a hash made with older scrypt parameters is replaced at the next successful check', async () => {
    const p = await server().newProgram('affiliate');
    const created = await server().request('POST', '/v1/partners', {
      token: p.token,
      body: { email: 'pat@example.com' },
    });
    assert.equal(created.status, 201, created.text);
    const old = await hashPassword('Secret123', { N: 2 ** 14, r: 8, p: 1 });
    const db = server().deps.database.db;
    await db.updateTable('partners').set({ password_hash: old }).where('program_id', '=', p.id).execute();
    const ctx = {
      ...server().deps,
      program: {
        id: p.id,
        publicId: p.publicId,
        type: p.type,
        keyId: 0,
        keyPublicId: 'x',
        scope: 'full' as const,
      },
    };
    const stored = async () =>
      (
        await db
          .selectFrom('partners')
          .select('password_hash')
          .where('program_id', '=', p.id)
          .executeTakeFirstOrThrow()
      ).password_hash;
    assert.equal(await checkPartnerPassword(ctx, 'PAT@example.com', 'Wrong1234'), false);
    assert.equal(await stored(), old, 'a failed check changes nothing');
    assert.equal(await checkPartnerPassword(ctx, 'pat@example.com', 'Secret123'), true);
    const upgraded = await stored();
    const { N, r, p: parallel } = server().deps.config.passwordHashing;
    assert.ok(upgraded?.startsWith(`scrypt$${N}$${r}$${parallel}$`), upgraded ?? 'no hash');
    assert.equal(await checkPartnerPassword(ctx, 'pat@example.com', 'Secret123'), true);
    assert.equal(await stored(), upgraded, 'a current hash is kept');
  });
});

for (const dialect of testDialects()) {
  describe(`authentication budgets per client address [${dialect}]`, () => {
    let limited: TestServer;
    before(async () => {
      limited = await startServer({
        dialect,
        env: { AUTH_FAILURES_PER_MINUTE: '5', ADMIN_RATE_LIMIT_PER_MINUTE: '1000' },
      });
    });
    after(() => limited.close());

    test('failed authentications answer 429 past the budget, and the address is refused for the window', async () => {
      const p = await limited.newProgram('affiliate');
      for (let i = 0; i < 5; i++) {
        const reply = await limited.request('GET', '/v1/program', { token: `vk_${'A'.repeat(12)}_${i}` });
        assert.equal(reply.status, 401);
      }
      const over = await limited.request('GET', '/v1/program', { token: 'nope' });
      assert.equal(over.status, 429);
      assert.deepEqual(over.body, { message: 'Too Many Attempts.', errors: {}, status: 0 });
      const retry = Number(over.headers.get('retry-after'));
      assert.ok(retry > 0 && retry <= 60, `Retry-After ${retry}`);
      const valid = await limited.request('GET', '/v1/program', { token: p.token });
      assert.equal(valid.status, 429, 'not even a valid key is looked up from this address');
      const badAdmin = await limited.request('GET', '/admin/v1/programs', { token: 'wrong-admin-token-000' });
      assert.equal(badAdmin.status, 429);
    });
  });

  describe(`admin API budget per client address [${dialect}]`, () => {
    let limited: TestServer;
    before(async () => {
      limited = await startServer({ dialect, env: { ADMIN_RATE_LIMIT_PER_MINUTE: '3' } });
    });
    after(() => limited.close());

    test('the admin API answers 429 past ADMIN_RATE_LIMIT_PER_MINUTE', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await limited.request('GET', '/admin/v1/programs', { token: ADMIN_TOKEN })).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal((await limited.request('GET', '/health')).status, 200);
    });
  });
}

test('on SQLite without SECRET_KEY the key is generated beside the database, kept, and rotated by the CLI', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-secret-'));
  const url = `sqlite:${join(dir, 'vouch.db')}`;
  const keyFile = join(dir, 'vouch.db.key');
  try {
    const first = await startServer({ dialect: 'sqlite', database: { url }, env: { SECRET_KEY: '' } });
    let key: string;
    let signature: string;
    try {
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const p = await first.newProgram('affiliate');
      const created = await first.request('POST', '/v1/webhooks', {
        token: p.token,
        body: { name: 'hook', url: 'https://hooks.example.com/f', events: ['partner.created'] },
      });
      ({ key, signature = '' } = created.body.data);
    } finally {
      await first.close();
    }
    const keyBefore = readFileSync(keyFile, 'utf8');
    assert.match(keyBefore, /^[0-9a-f]{64}\n$/);
    const second = await startServer({ dialect: 'sqlite', database: { url }, env: { SECRET_KEY: '' } });
    try {
      assert.equal(readFileSync(keyFile, 'utf8'), keyBefore, 'the same key at the next start');
      const rows = await second.deps.database.db.selectFrom('api_keys').select('program_id').execute();
      assert.ok(rows.length > 0);
      const result = await rotateSecrets(second.deps);
      assert.equal(result.resealed, 1);
      const keyAfter = readFileSync(keyFile, 'utf8');
      assert.match(keyAfter, /^[0-9a-f]{64}\n$/);
      assert.notEqual(keyAfter, keyBefore);
      const row = await second.deps.database.db
        .selectFrom('webhooks')
        .select('signature')
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      assert.equal(new SecretBox([Buffer.from(keyAfter.trim(), 'hex')]).open(row.signature), signature);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
