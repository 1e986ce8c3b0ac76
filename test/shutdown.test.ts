import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

test('the server starts on SQLite, migrating a fresh file, and exits 0 on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-start-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: new URL('..', import.meta.url).pathname,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, 'data', 'vouch.db')}`,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 20_000;
    let health: Response | undefined;
    while (Date.now() < deadline) {
      health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (health) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(health?.status, 200, output);
    assert.match(output, /"database":"sqlite"/);
    const inFlight = Array.from({ length: 20 }, () =>
      fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status),
    );
    child.kill('SIGTERM');
    const statuses = await Promise.all(inFlight.map((p) => p.catch(() => 0)));
    assert.ok(statuses.every((s) => s === 200 || s === 503 || s === 0));
    assert.equal(await exited, 0, output);
    assert.match(output, /shutting down/);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
