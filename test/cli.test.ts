import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { useCompiledBuild } from './harness.ts';

/**
 * Issue 29: the `vouch` CLI as a user runs it (`npx vouch …`, bin/vouch.js). Help and version
 * answer with exit 0 and touch no database; wrong usage says what is wrong in one line, then the
 * command's usage, with exit 64.
 */
const root = new URL('..', import.meta.url).pathname;
const version = String(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
const dir = mkdtempSync(join(tmpdir(), 'vouch-cli-'));
const databaseFile = join(dir, 'vouch.db');

before(useCompiledBuild);
after(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function runVouch(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/vouch.js', ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: `sqlite:${databaseFile}`, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const vouch = (...args: string[]) => runVouch(args);

/** The subcommands a help text lists under "Commands:", without the built-in `help`. */
function subcommandsIn(help: string): string[] {
  const section = help.split(/^Commands:\n/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)]
    .map((match) => match[1] ?? '')
    .filter((name) => name !== 'help');
}

/** Every command path, found by walking the help tree from `vouch --help`, so none is forgotten. */
async function commandPaths(): Promise<string[][]> {
  const paths: string[][] = [];
  const visit = async (path: string[]) => {
    paths.push(path);
    const help = await vouch(...path, '--help');
    for (const name of subcommandsIn(help.stdout)) await visit([...path, name]);
  };
  await visit([]);
  return paths;
}

describe('vouch CLI usage', () => {
  let paths: string[][] = [];
  before(async () => {
    paths = await commandPaths();
  });

  test('the help tree holds every command of the README table', () => {
    const names = paths.map((path) => path.join(' '));
    for (const expected of [
      'programs create',
      'programs list',
      'keys create',
      'keys revoke',
      'migrate',
      'worker',
      'seed',
      'export',
      'secrets rotate',
    ]) {
      assert.ok(names.includes(expected), `${expected} in ${JSON.stringify(names)}`);
    }
  });

  test('every command answers --help and -h with its usage, exit 0, and touches no database', async () => {
    const runs = paths.flatMap((path) => ['--help', '-h'].map((flag) => [...path, flag]));
    const outcomes = await Promise.all(runs.map((args) => vouch(...args)));
    runs.forEach((args, i) => {
      const { code, stdout, stderr } = outcomes[i] ?? { code: -1, stdout: '', stderr: '' };
      const shown = `vouch ${args.join(' ')}`;
      assert.equal(code, 0, `${shown}: ${stderr}`);
      assert.equal(stderr, '', shown);
      assert.match(stdout, new RegExp(`^Usage: ${['vouch', ...args.slice(0, -1)].join(' ')} `), shown);
    });
    assert.equal(existsSync(databaseFile), false, 'no command opened the database');
  });

  test('migrate --help does not migrate, and programs create --help prints usage, not a parser error', async () => {
    const migrate = await vouch('migrate', '--help');
    assert.match(migrate.stdout, /bring the database schema up to date/);
    const create = await vouch('programs', 'create', '--help');
    assert.match(create.stdout, /--name <name>/);
    assert.match(create.stdout, /--type <type>.*affiliate/s);
    assert.equal(existsSync(databaseFile), false);
  });

  test("seed's help names --subscribers", async () => {
    assert.match((await vouch('seed', '--help')).stdout, /--subscribers <n>/);
  });

  test('--version and -v print the version, exit 0', async () => {
    for (const flag of ['--version', '-v']) {
      assert.deepEqual(await vouch(flag), { code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  test('vouch alone prints its usage with exit 0', async () => {
    const { code, stdout } = await vouch();
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: vouch /);
  });

  test('an unknown option is named in one line, then the usage of that command, exit 64', async () => {
    const outcomes = await Promise.all(paths.map((path) => vouch(...path, '--bogus')));
    paths.forEach((path, i) => {
      const { code, stdout, stderr } = outcomes[i] ?? { code: -1, stdout: '', stderr: '' };
      const shown = `vouch ${[...path, '--bogus'].join(' ')}`;
      assert.equal(code, 64, shown);
      assert.equal(stdout, '', shown);
      const [first, blank, usage] = stderr.split('\n');
      assert.equal(first, "error: unknown option '--bogus'", shown);
      assert.equal(blank, '', shown);
      assert.match(usage ?? '', new RegExp(`^Usage: ${['vouch', ...path].join(' ')} `), shown);
    });
    const typo = await vouch('programs', 'create', '--nam', 'Shop');
    assert.equal(typo.stderr.split('\n')[0], "error: unknown option '--nam' (did you mean --name?)");
  });

  test('wrong values and missing options are usage errors with the usage, exit 64', async () => {
    const cases: [string[], string][] = [
      [['frobnicate'], "error: unknown command 'frobnicate'"],
      [['programs', 'create', '--name', 'Shop'], "error: required option '--type <type>' not specified"],
      [
        ['programs', 'create', '--name', 'Shop', '--type', 'pyramid'],
        "error: option '--type <type>' argument 'pyramid' is invalid. Allowed choices are affiliate, referral, newsletter.",
      ],
      [
        ['seed', '--partners', 'many'],
        "error: option '--partners <n>' argument 'many' is invalid. Expected a whole number.",
      ],
      [['keys', 'revoke'], "error: missing required argument 'key-id'"],
      [['migrate', 'now'], "error: too many arguments for 'migrate'. Expected 0 arguments but got 1."],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await vouch(...args);
      assert.equal(code, 64, args.join(' '));
      assert.equal(stderr.split('\n')[0], message);
      assert.match(stderr, /\nUsage: vouch /);
    }
    assert.equal(existsSync(databaseFile), false);
  });

  test('a group without its subcommand prints the group usage, exit 64', async () => {
    const { code, stderr } = await vouch('programs');
    assert.equal(code, 64);
    assert.match(stderr, /^Usage: vouch programs /);
    assert.match(stderr, /create \[options\]/);
  });
});

describe('vouch CLI commands', () => {
  test('migrate applies the migrations of a new database and says which', async () => {
    const first = await vouch('migrate');
    assert.equal(first.code, 0, first.stderr);
    const report = JSON.parse(first.stdout);
    assert.equal(report.database, 'sqlite');
    assert.ok(report.applied.length > 0);
    assert.deepEqual(JSON.parse((await vouch('migrate')).stdout), {
      database: 'sqlite',
      applied: [],
      status: 'up to date',
    });
  });

  test('a seed into a program of the wrong type is a usage error, exit 64', async () => {
    const created = await vouch('programs', 'create', '--name', 'Letters', '--type', 'newsletter');
    const id = String(JSON.parse(created.stdout).program.id);
    const { code, stderr } = await vouch('seed', '--partners', '1', '--program', id);
    assert.equal(code, 64);
    assert.match(stderr, /^error: --program must name an affiliate program\n\nUsage: vouch seed /);
  });

  test('export writes the CSV file to stdout, and quietly when stderr is no terminal', async () => {
    const created = await vouch('programs', 'create', '--name', 'Shop', '--type', 'affiliate');
    const id = String(JSON.parse(created.stdout).program.id);
    const seeded = await vouch('seed', '--partners', '3', '--program', id);
    assert.equal(seeded.code, 0, seeded.stderr);
    const file = await vouch('export', 'partners', '--program', id);
    assert.equal(file.code, 0, file.stderr);
    assert.equal(file.stderr, '');
    const lines = file.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'id,email,name,surname,status,key,created_at');
    assert.equal(lines.length, 4);
    const wrong = await vouch('export', 'subscribers', '--program', id);
    assert.equal(wrong.code, 64);
    assert.match(wrong.stderr, /has no subscribers export/);
  });

  test('a bad configuration value is named with exit 78', async () => {
    const result = await runVouch(['programs', 'list'], { DATABASE_URL: 'mysql://nowhere' });
    assert.equal(result.code, 78);
    assert.match(result.stderr, /^vouch: DATABASE_URL: /);
  });
});
