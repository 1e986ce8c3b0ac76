import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type ClientRequest, request as sendRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { SqliteDatabase as Database } from '../src/db/sqlite-driver.ts';
import { freePort } from './free-port.ts';
import { ADMIN_TOKEN, startupBudgetMs, useCompiledBuild } from './harness.ts';

const root = new URL('..', import.meta.url).pathname;

before(useCompiledBuild);

/** Resolves when the process's output matches, rejects when it exits first or the budget runs out. */
function waitForOutput(child: ChildProcess, output: () => string, pattern: RegExp, budgetMs: number) {
  return new Promise<void>((resolve, reject) => {
    const check = () => {
      if (pattern.test(output())) done(resolve);
    };
    const exited = (code: number | null) => done(() => reject(new Error(`exited ${code}:\n${output()}`)));
    const timer = setTimeout(
      () => done(() => reject(new Error(`no ${pattern} within ${budgetMs} ms:\n${output()}`))),
      budgetMs,
    );
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', exited);
      settle();
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.on('exit', exited);
    check();
  });
}

/**
 * A request whose body has not arrived yet. `Expect: 100-continue` makes the server say when it
 * has parsed the headers, so the test knows the request is in flight before it sends SIGTERM.
 */
function slowRequest(port: number, path: string, body: string) {
  const outgoing: ClientRequest = sendRequest({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      expect: '100-continue',
    },
  });
  const accepted = new Promise<void>((resolve) => outgoing.once('continue', resolve));
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    outgoing.once('response', (incoming) => {
      let text = '';
      incoming.on('data', (chunk) => (text += chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
      incoming.on('error', reject);
    });
    outgoing.once('error', reject);
  });
  outgoing.flushHeaders();
  return { accepted, answered, finish: () => outgoing.end(body) };
}

test('SIGTERM lets every request in flight finish, then the process exits 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-shutdown-'));
  const file = join(dir, 'vouch.db');
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: `sqlite:${file}`,
      ADMIN_TOKEN,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitForOutput(child, () => output, /vouch listening/, startupBudgetMs());
    assert.match(output, /"database":"sqlite"/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);

    const names = Array.from({ length: 8 }, (_, i) => `In flight ${i}`);
    const inFlight = names.map((name) =>
      slowRequest(
        port,
        '/admin/v1/programs',
        JSON.stringify({ name, type: 'affiliate', website: 'https://shop.example.com' }),
      ),
    );
    await Promise.all(inFlight.map((r) => r.accepted));

    child.kill('SIGTERM');
    await waitForOutput(child, () => output, /shutting down/, startupBudgetMs());
    // The close has begun; the bodies arrive only now, while the server is closing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const r of inFlight) r.finish();

    const replies = await Promise.all(inFlight.map((r) => r.answered.catch((error: Error) => error)));
    for (const reply of replies) {
      assert.ok(!(reply instanceof Error), `a request in flight was dropped: ${reply}\n${output}`);
      assert.equal(reply.status, 201, reply.text);
    }
    assert.equal(await exited, 0, output);

    // Each answered create was committed before the database closed.
    const db = new Database(file, { readonly: true });
    try {
      const stored = db.prepare('select name from programs order by name').all() as { name: string }[];
      assert.deepEqual(
        stored.map((row) => row.name),
        names,
      );
    } finally {
      db.close();
    }
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
