import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import {
  ADMIN_TOKEN,
  describeEachDatabase,
  startServer,
  testDialects,
  useCompiledBuild,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;

// The CLI and the API process below run from the compiled build (bin/vouch.js prefers dist/).
before(useCompiledBuild);

describeEachDatabase('admin API', (server) => {
  test('creates programs of each type and shows them', async () => {
    const created = await server().admin('POST', '/admin/v1/programs', {
      name: 'Friends',
      type: 'referral',
      website: 'https://friends.example',
    });
    assert.equal(created.status, 201);
    const program = created.body.data;
    assert.equal(program.type, 'referral');
    assert.match(program.public_id, /^[A-Za-z0-9]{12}$/);
    const fetched = await server().admin('GET', `/admin/v1/programs/${program.id}`);
    assert.deepEqual(fetched.body, { data: program, status: 1 });
    const byPublicId = await server().admin('GET', `/admin/v1/programs/${program.public_id}`);
    assert.equal(byPublicId.body.data.id, program.id);
  });

  test('rejects bad program input with 422 naming the field', async () => {
    const res = await server().admin('POST', '/admin/v1/programs', {
      name: '',
      type: 'pyramid',
      website: 'ftp://x',
    });
    assert.equal(res.status, 422);
    assert.deepEqual(Object.keys(res.error.errors).sort(), ['name', 'type', 'website']);
    assert.deepEqual(res.error.errors.name, ['The name field is required.']);
    assert.deepEqual(res.error.errors.type, ['The selected type is invalid.']);
  });

  test('keys are shown once, listed without tokens, and stop working within a second of revocation', async () => {
    const program = await server().newProgram('affiliate');
    const created = await server().admin('POST', `/admin/v1/programs/${program.id}/api-keys`, { name: 'ci' });
    assert.equal(created.status, 201);
    const key = created.body.data;
    assert.match(key.token, /^vk_[A-Za-z0-9]{12}_[A-Za-z0-9]{32}$/);
    assert.equal(key.scope, 'full');
    const listed = await server().admin('GET', `/admin/v1/programs/${program.id}/api-keys`);
    assert.equal(listed.body.data.length, 3);
    assert.ok(!listed.text.includes(itemAt(key.token.split('_'), 2)), 'no token in the list');

    assert.equal((await server().request('GET', '/v1/program', { token: key.token })).status, 200);
    assert.equal((await server().admin('DELETE', `/admin/v1/api-keys/${key.id}`)).status, 200);
    const deadline = Date.now() + 1500;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = (await server().request('GET', '/v1/program', { token: key.token })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 401);
    assert.equal((await server().admin('DELETE', `/admin/v1/api-keys/${key.id}`)).status, 404);
  });

  test('a key whose secret is wrong, with a real public part, answers 401', async () => {
    const program = await server().newProgram('affiliate');
    const forged = `${program.token.slice(0, 16)}${'x'.repeat(32)}`;
    assert.equal((await server().request('GET', '/v1/program', { token: forged })).status, 401);
  });

  test('the admin API needs the admin token', async () => {
    assert.equal((await server().request('GET', '/admin/v1/programs')).status, 401);
    assert.equal(
      (await server().request('GET', '/admin/v1/programs', { token: 'wrong-token-wrong-token' })).status,
      401,
    );
    const program = await server().newProgram('affiliate');
    assert.equal((await server().request('GET', '/admin/v1/programs', { token: program.token })).status, 401);
    assert.equal((await server().admin('GET', '/admin/v1/programs/999999')).status, 404);
  });
});

for (const dialect of testDialects()) {
  test(`without ADMIN_TOKEN the admin API does not exist [${dialect}]`, async () => {
    const server = await startServer({ dialect, env: { ADMIN_TOKEN: '' } });
    try {
      const res = await server.request('GET', '/admin/v1/programs', { token: ADMIN_TOKEN });
      assert.equal(res.status, 404);
      assert.equal(res.body.status, 0);
    } finally {
      await server.close();
    }
  });
}

test('the vouch CLI creates programs and keys, lists, revokes and migrates', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-cli-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'cli.db')}` };
  const vouch = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, ['bin/vouch.js', ...args], { cwd: root, env })).stdout);
  try {
    const created = await vouch(
      'programs',
      'create',
      '--name',
      'CLI shop',
      '--type',
      'affiliate',
      '--website',
      'https://cli.example',
    );
    assert.equal(created.program.name, 'CLI shop');
    assert.match(created.api_key.token, /^vk_/);
    const read = await vouch('keys', 'create', '--program', String(created.program.id), '--scope', 'read');
    assert.equal(read.scope, 'read');
    const listed = await vouch('programs', 'list');
    assert.equal(listed.length, 1);
    assert.deepEqual(await vouch('migrate'), { database: 'sqlite', applied: [], status: 'up to date' });

    const server = await startServer({ dialect: 'sqlite', database: { url: env.DATABASE_URL } });
    try {
      const ok = await server.request('GET', '/v1/program', { token: created.api_key.token });
      assert.equal(ok.body.data.program.name, 'CLI shop');
      assert.deepEqual(await vouch('keys', 'revoke', read.id), { revoked: read.id });
      assert.equal((await server.request('GET', '/v1/program', { token: read.token })).status, 401);
    } finally {
      await server.close();
    }

    await assert.rejects(
      run(process.execPath, ['bin/vouch.js', 'programs', 'create', '--name', 'X', '--type', 'pyramid'], {
        cwd: root,
        env,
      }),
      /--type <type>' argument 'pyramid' is invalid/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad configuration value stops start-up with a message naming the variable', async () => {
  const attempt = run(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: { ...process.env, PORT: 'eighty' },
  });
  await assert.rejects(attempt, (error: { stderr: string; code: number }) => {
    assert.match(error.stderr, /PORT/);
    assert.notEqual(error.code, 0);
    return true;
  });
});
