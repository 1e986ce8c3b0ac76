// `npm test`: every test file on SQLite and PostgreSQL in one node:test run.
// PostgreSQL comes from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test). When it
// is unreachable the run fails under CI and falls back to SQLite alone (with a warning) elsewhere.
// Arguments narrow the run to some files: `npm test -- src/modules/program`.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

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
const files = [...testFiles('src'), ...testFiles('test')]
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

const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=4',
    '--test-timeout=120000',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, VOUCH_TEST_DIALECTS: dialects } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
