// `npm test`: every test file on SQLite and PostgreSQL, as plain JavaScript.
// PostgreSQL comes from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test). When it
// is unreachable the run fails under CI and falls back to SQLite alone (with a warning) elsewhere.
// Arguments narrow the run to some files: `npm test -- src/modules/program`.
// src/ and test/ are compiled once into a mirror of the repository (scripts/compile-suite.mjs) and
// their test files run there in one node:test run, without a loader. The workspace packages' tests
// (packages/*/test) run after them through tsx, with the `vouch-source` condition so that a package
// imports another's TypeScript sources rather than its build.
// When a selected file starts Vouch as a process (it calls useCompiledBuild), src/ is compiled
// into dist/ if stale, beside the first test files: those tests wait for the build. The start-up
// of the TypeScript app through tsx is measured once, as a gauge of the machine: every time budget
// of the run is a multiple of it, so a busy machine gets proportionally longer budgets instead of
// failures. The run ends by printing its duration.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { buildIfStale } from './build-if-stale.mjs';
import { compileSuite } from './compile-suite.mjs';

const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function testFiles(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return testFiles(path);
    return path.endsWith('.test.ts') ? [path] : [];
  });
}

async function postgresReachable() {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    console.error(`PostgreSQL at ${databaseUrl} is unreachable: ${error.message}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const filters = process.argv.slice(2);
const packageTests = readdirSync('packages').flatMap((name) => {
  const dir = join('packages', name, 'test');
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? testFiles(dir) : [];
});
const files = [...testFiles('src'), ...testFiles('test'), ...packageTests]
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

let dialects = process.env.VOUCH_TEST_DIALECTS ?? 'sqlite,postgres';
if (dialects.includes('postgres') && !(await postgresReachable())) {
  if (process.env.CI) {
    console.error('CI is set: the PostgreSQL lane is required.');
    process.exit(1);
  }
  console.error('Running the SQLite lane only.');
  dialects = 'sqlite';
}
console.log(`databases: ${dialects}; ${files.length} test files`);

const needsBuild = files.some((file) => readFileSync(file, 'utf8').includes('useCompiledBuild'));
// Takes the build lock before the test files start, so theirs wait for this build.
const building = needsBuild ? buildIfStale() : Promise.resolve(undefined);
building.then(
  (build) => {
    if (build) console.log(build.built ? `dist/ compiled in ${seconds(build.ms)}` : 'dist/ is up to date');
  },
  (error) => console.error(`the build failed: ${error.message}`),
);

/** Loading the app through tsx once: how fast this machine is at the moment. */
function measureStartup() {
  const before = Date.now();
  const probe = spawn(process.execPath, ['--import', 'tsx', '-e', "await import('./src/app.ts')"], {
    stdio: 'inherit',
  });
  return new Promise((resolve) =>
    probe.on('exit', (code) => {
      if (code !== 0) process.exit(code ?? 1);
      resolve(Date.now() - before);
    }),
  );
}
const startupMs = await measureStartup();
// A test that runs longer than this hangs: 100 start-ups, and never less than ten minutes.
const testTimeoutMs = Math.max(600_000, 100 * startupMs);
console.log(`app start-up ${seconds(startupMs)}; per-test budget ${seconds(testTimeoutMs)}`);

// src/ and test/ run compiled, without a loader (scripts/compile-suite.mjs); the workspace
// packages' tests run after them through tsx, which resolves one package's sources from another's
// by the `vouch-source` condition.
const suite = compileSuite();
// Interrupted (Ctrl-C reaches the test processes too), the run still removes its mirror.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    suite.remove();
    process.exit(130);
  });
}
console.log(
  `src/ and test/ as JavaScript in ${seconds(suite.ms)} (${suite.compiled} of ${suite.files} files compiled, the rest cached)`,
);
const compiled = files
  .filter((file) => !file.startsWith('packages'))
  .map((file) => join(suite.mirror, file.replace(/\.tsx?$/, '.js')));
const throughTsx = files.filter((file) => file.startsWith('packages'));

function runTests(loaderArgs, testFiles) {
  if (testFiles.length === 0) return Promise.resolve(0);
  const child = spawn(
    process.execPath,
    [
      ...loaderArgs,
      '--enable-source-maps',
      '--test',
      '--test-concurrency=4',
      `--test-timeout=${testTimeoutMs}`,
      '--test-reporter=spec',
      ...testFiles,
    ],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        VOUCH_TEST_DIALECTS: dialects,
        VOUCH_TEST_STARTUP_MS: String(startupMs),
        ...(needsBuild ? { VOUCH_TEST_BUILD: 'runner' } : {}),
      },
    },
  );
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

let code = 1;
try {
  code = await runTests([], compiled);
  const packagesCode = await runTests(['--conditions=vouch-source', '--import', 'tsx'], throughTsx);
  if (code === 0) code = packagesCode;
} finally {
  suite.remove();
}
const built = await building.then(
  () => true,
  () => false,
);
console.log(`npm test took ${seconds(Date.now() - started)}`);
process.exit(built ? code : 1);
