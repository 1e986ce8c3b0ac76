// Compiles src/ into dist/ with `npm run build` unless dist/ is newer than every source file, so
// the tests that start Vouch as a process (the CLI, the API's shutdown) run the compiled build, as
// production does, without paying tsx's start-up in each spawn. `npm test` calls it once per run;
// those tests call it again, which costs a directory walk when the build is fresh. A lock directory
// keeps two test files run side by side from compiling into dist/ at the same time.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds when stale; returns what it did ('fresh' or the build's duration) for the run's log. */
export async function buildIfStale() {
  if (isFresh()) return { built: false, ms: 0 };
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another process is building: a lock older than five minutes belongs to a killed run.
      if (Date.now() - mtimeOrZero(lock) > 300_000) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    if (isFresh()) return { built: false, ms: 0 };
    const stampTime = Date.now();
    const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8' });
    // tsc writes its JavaScript even when a type is wrong; the type errors are `npm run typecheck`'s
    // to report, so a build that emitted still serves the tests.
    if (
      mtimeOrZero(join(root, 'dist', 'cli.js')) < stampTime ||
      mtimeOrZero(join(root, 'dist', 'main.js')) < stampTime
    ) {
      throw new Error(`npm run build did not write dist/:\n${result.stdout}${result.stderr}`);
    }
    if (result.status !== 0)
      process.stderr.write(`npm run build reported errors:\n${result.stdout}${result.stderr}`);
    // Dated at the build's start: a source saved while tsc ran makes the next run build again.
    writeFileSync(stamp, new Date(stampTime).toISOString());
    utimesSync(stamp, new Date(stampTime), new Date(stampTime));
    return { built: true, ms: Date.now() - stampTime };
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
