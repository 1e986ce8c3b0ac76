// Compiles src/ into dist/ with `npm run build` unless dist/ is newer than every source file, so
// the tests that start Vouch as a process (the CLI, the worker, the API's shutdown) run the
// compiled build, as production does, without paying tsx's start-up in each spawn.
// `npm test` starts one build per run beside the first test files (VOUCH_TEST_BUILD=runner): the
// process tests then wait for it instead of checking again. A test file run on its own builds
// when stale. A lock directory, owned by the building process's pid, keeps two processes from
// compiling into dist/ at the same time.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.built-at');
const lock = join(root, 'dist', '.build-lock');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    // Pages are .tsx: a change to them is a change to the build too.
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function mtimeOrZero(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function isFresh() {
  const inputs = Math.max(
    newestSource(join(root, 'src')),
    mtimeOrZero(join(root, 'tsconfig.json')),
    mtimeOrZero(join(root, 'tsconfig.build.json')),
  );
  return mtimeOrZero(stamp) > inputs;
}

/** Takes the lock, or says who holds it; a lock whose process has died is taken over. */
function tryLock() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return true;
  } catch {
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    } catch {}
    if (Number.isInteger(owner) && !isAlive(owner)) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** Waits while another process holds the build lock. */
export async function waitForBuild() {
  for (;;) {
    if (tryLock()) {
      rmSync(lock, { recursive: true, force: true });
      return;
    }
    await sleep(250);
  }
}

/**
 * Builds when stale; resolves to what it did, for the run's log. When it has to build and the lock
 * is free, it takes the lock before returning its promise, so a process started right after the
 * call finds the build under way.
 */
export async function buildIfStale() {
  if (isFresh()) return { built: false, ms: 0 };
  while (!tryLock()) await sleep(250);
  try {
    if (isFresh()) return { built: false, ms: 0 };
    const stampTime = Date.now();
    const result = await run('npm', ['run', '--silent', 'build']);
    // tsc writes its JavaScript even when a type is wrong; the type errors are `npm run typecheck`'s
    // to report, so a build that emitted still serves the tests.
    if (
      mtimeOrZero(join(root, 'dist', 'cli.js')) < stampTime ||
      mtimeOrZero(join(root, 'dist', 'main.js')) < stampTime
    ) {
      throw new Error(`npm run build did not write dist/:\n${result.output}`);
    }
    if (result.status !== 0) process.stderr.write(`npm run build reported errors:\n${result.output}`);
    // Dated at the build's start: a source saved while tsc ran makes the next run build again.
    writeFileSync(stamp, new Date(stampTime).toISOString());
    utimesSync(stamp, new Date(stampTime), new Date(stampTime));
    return { built: true, ms: Date.now() - stampTime };
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
