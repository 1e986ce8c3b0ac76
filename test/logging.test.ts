import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { redactCredentials } from '../src/logging.ts';
import { freePort } from './free-port.ts';
import { ADMIN_TOKEN, startupBudgetMs, useCompiledBuild } from './harness.ts';

/** Issue 29: what the API process logs — no credential in clear, and a word when the admin API is off. */
const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'vouch-logging-'));

before(useCompiledBuild);
after(() => rmSync(dir, { recursive: true, force: true }));

const SECRET_HALF = 'S3cretHalfOfTheKey0123456789abcd';
const API_KEY = `vk_PublicPart12_${SECRET_HALF}`;

test('credential-looking values are redacted from a log line', () => {
  const cases: [string, string][] = [
    [`"url":"/v1/program?api_key=${API_KEY}&limit=5"`, '"url":"/v1/program?api_key=[redacted]&limit=5"'],
    ['"url":"/x?limit=5&access_token=abc.def"', '"url":"/x?limit=5&access_token=[redacted]"'],
    ['"url":"/x?TOKEN=abc#frag"', '"url":"/x?TOKEN=[redacted]#frag"'],
    [
      '"url":"/x?client_secret=s&password=p&apiKey=k"',
      '"url":"/x?client_secret=[redacted]&password=[redacted]&apiKey=[redacted]"',
    ],
    [`"msg":"key ${API_KEY} refused"`, '"msg":"key vk_[redacted] refused"'],
    ['"url":"/p/Shop1/link/abcdef0123?next=1"', '"url":"/p/Shop1/link/[redacted]?next=1"'],
    ['"url":"/portal/Prog/code1/s3cr3t"', '"url":"/portal/Prog/code1/[redacted]"'],
    // Ordinary parameters and paths stay as they are.
    ['"url":"/v1/partners?limit=5&key=abc&monkey=1"', '"url":"/v1/partners?limit=5&key=abc&monkey=1"'],
    ['"url":"/r/abc?aff=xyz"', '"url":"/r/abc?aff=xyz"'],
  ];
  for (const [line, expected] of cases) assert.equal(redactCredentials(line), expected);
});

interface Running {
  port: number;
  output(): string;
  waitFor(pattern: RegExp): Promise<void>;
  stop(): Promise<number | null>;
}

async function startVouch(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATABASE_URL: `sqlite:${join(dir, `${port}.db`)}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const waitFor = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output)) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no ${pattern} within ${startupBudgetMs()} ms:\n${output}`));
      }, startupBudgetMs());
      listeners.add(check);
      check();
    });
  await waitFor(/vouch listening/);
  return {
    port,
    output: () => output,
    waitFor,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

test('at debug level, keys sent in the query or a path never reach the log in clear', async () => {
  const vouch = await startVouch({ LOG_LEVEL: 'debug', ADMIN_TOKEN: '' });
  const base = `http://127.0.0.1:${vouch.port}`;
  const probes = [
    `/v1/program?api_key=${API_KEY}`,
    `/v1/partners?limit=1&token=${SECRET_HALF}`,
    `/p/NoSuchProgram/link/${SECRET_HALF}`,
  ];
  for (const probe of probes) {
    const res = await fetch(`${base}${probe}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    await res.arrayBuffer();
  }
  // The request lines are written once each answer has gone out.
  await vouch.waitFor(/\/link\/\[redacted\]/);
  assert.equal(await vouch.stop(), 0, vouch.output());
  const log = vouch.output();
  assert.match(log, /"url":"\/v1\/program\?api_key=\[redacted\]"/, 'the request was logged, redacted');
  assert.match(log, /"url":"\/v1\/partners\?limit=1&token=\[redacted\]"/);
  assert.doesNotMatch(log, new RegExp(SECRET_HALF), log);
});

test('without ADMIN_TOKEN the start-up says the admin API is disabled; with it, nothing', async () => {
  const without = await startVouch({ LOG_LEVEL: 'info', ADMIN_TOKEN: '' });
  await without.stop();
  assert.match(without.output(), /"msg":"admin API disabled: set ADMIN_TOKEN"/);
  const withToken = await startVouch({ LOG_LEVEL: 'info', ADMIN_TOKEN });
  await withToken.stop();
  assert.doesNotMatch(withToken.output(), /admin API disabled/);
});
