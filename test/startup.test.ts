import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { startupBudgetMs, useCompiledBuild } from './harness.ts';

/** Issue 9: a failed start says which variable and why, in one line, and exits non-zero. */
const root = new URL('..', import.meta.url).pathname;

before(useCompiledBuild);

function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'info', SECRET_KEY: 'a'.repeat(64), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${startupBudgetMs()} ms:\n${stdout}${stderr}`));
    }, startupBudgetMs());
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('an unreachable PostgreSQL is named in one line: DATABASE_URL, host, port, cause', async () => {
  const { code, stderr } = await run({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/vouch', PORT: '0' });
  assert.notEqual(code, 0);
  assert.equal(stderr, 'vouch: DATABASE_URL: cannot connect to 127.0.0.1:1/vouch (connection refused)\n');
});

test('a SQLite file that cannot be created is named in one line', async () => {
  const { code, stderr } = await run({ DATABASE_URL: 'sqlite:/dev/null/vouch/vouch.db', PORT: '0' });
  assert.notEqual(code, 0);
  assert.match(
    stderr,
    /^vouch: DATABASE_URL: cannot open \/dev\/null\/vouch\/vouch\.db \(a parent is not a directory\)\n$/,
  );
});

test('a port in use is named in one line, and no worker starts before the port is ours', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  const dir = mkdtempSync(join(tmpdir(), 'vouch-startup-'));
  try {
    const { code, stdout, stderr } = await run({
      DATABASE_URL: `sqlite:${join(dir, 'vouch.db')}`,
      PORT: String(port),
      WORKER: 'on',
    });
    assert.notEqual(code, 0);
    assert.equal(stderr, `vouch: PORT: ${port} is already in use on 127.0.0.1\n`);
    assert.doesNotMatch(stdout, /worker started/);
  } finally {
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad variable is named in one line with exit 78', async () => {
  const { code, stderr } = await run({ PORT: 'eighty' });
  assert.equal(code, 78);
  assert.equal(stderr, 'vouch: PORT: expected a whole number from 0 to 65535, got "eighty"\n');
});
