// Compiles src/ and test/ once into a mirror of the repository, so `npm test` runs plain
// JavaScript: through tsx every test file's process passed each of the app's ~1,400 modules
// through Node 20's off-thread loader hooks, about 4.7 s of CPU per file (docs/adr/0139).
//
// The mirror is a directory whose entries stand where the repository's do: src/ and test/ hold
// each .ts or .tsx file compiled to .js beside a link to the source, every other file is a link,
// and every other top-level entry (node_modules, public, dist, package.json, …) is a link. So a
// path taken from `import.meta.url` (`../../public/vouch.js`, the repository root of a process
// test) lands where it does in the sources. TypeScript compiles each file on its own
// (`transpileModule`): no type check (`npm run typecheck` does that), the same options as the
// build, `.ts` import specifiers rewritten to `.js`, and an inline source map so a failure's stack
// names the source line. Each output is kept in node_modules/.cache/vouch-suite under a hash of its
// source, path and options, so a later run (the next Node lane of CI, the next `npm test`) compiles
// only what changed.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiledTrees = ['src', 'test'];
// Never linked: the repository's history, and what only this checkout's tools read.
const skipped = new Set(['.git', ...compiledTrees]);
const cache = join(root, 'node_modules', '.cache', 'vouch-suite');

function compilerOptions() {
  const configPath = join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root, configPath);
  if (errors.length > 0) throw new Error(ts.flattenDiagnosticMessageText(errors[0].messageText, '\n'));
  return {
    ...options,
    // Every file here is an ES module (package.json's "type"): said outright, since a file compiled
    // on its own cannot look it up as NodeNext would.
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: false,
    inlineSourceMap: true,
    sourceMap: false,
    declaration: false,
    // A map names its source beside its output: the mirror's link to the source.
    outDir: undefined,
    rootDir: undefined,
  };
}

function transpile(source, fileName, compilerOptions) {
  const { outputText, diagnostics } = ts.transpileModule(source, {
    compilerOptions,
    fileName,
    reportDiagnostics: true,
  });
  if (diagnostics && diagnostics.length > 0) {
    throw new Error(`${fileName}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n')}`);
  }
  return outputText;
}

/** Two runs may compile the same file at once: each writes its own file, then renames it in. */
function writeAtomically(path, text) {
  const temporary = `${path}.${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

function mirrorTree(dir, target, options, counts) {
  mkdirSync(target, { recursive: true });
  const outputs = new Set();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const from = join(dir, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) {
      mirrorTree(from, to, options, counts);
      continue;
    }
    symlinkSync(from, to);
    if (!/\.tsx?$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
    const output = entry.name.replace(/\.tsx?$/, '.js');
    if (outputs.has(output)) throw new Error(`two sources compile to ${join(target, output)}`);
    outputs.add(output);
    const source = readFileSync(from, 'utf8');
    const cached = join(
      cache,
      createHash('sha256').update(options.key).update(from).update(source).digest('hex'),
    );
    counts.used.add(cached);
    if (!existsSync(cached)) {
      writeAtomically(cached, transpile(source, from, options.compilerOptions));
      counts.compiled += 1;
    }
    // A copy, not a link: Node would name a linked module by its target, and its relative imports
    // and `import.meta.url` paths would start from the cache.
    copyFileSync(cached, join(target, output));
    counts.files += 1;
  }
}

/** Outputs of sources that have since changed: kept a week, for a run of another checkout state. */
function pruneCache(used) {
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (!used.has(path) && statSync(path).mtimeMs < weekAgo) rmSync(path, { force: true });
  }
}

/**
 * Builds a new mirror in the system's temporary directory and answers its path, with `remove()`.
 * A new one each run: runs side by side in one checkout never share or delete each other's.
 */
export function compileSuite() {
  const started = Date.now();
  const mirror = mkdtempSync(join(tmpdir(), 'vouch-suite-'));
  for (const entry of readdirSync(root)) {
    if (!skipped.has(entry)) symlinkSync(join(root, entry), join(mirror, entry));
  }
  const compilerOptionsUsed = compilerOptions();
  const options = {
    compilerOptions: compilerOptionsUsed,
    // A change to TypeScript, the options or this script compiles everything again.
    key: JSON.stringify([
      ts.version,
      compilerOptionsUsed,
      readFileSync(fileURLToPath(import.meta.url), 'utf8'),
    ]),
  };
  mkdirSync(cache, { recursive: true });
  const counts = { files: 0, compiled: 0, used: new Set() };
  for (const tree of compiledTrees) mirrorTree(join(root, tree), join(mirror, tree), options, counts);
  pruneCache(counts.used);
  return {
    mirror,
    files: counts.files,
    compiled: counts.compiled,
    ms: Date.now() - started,
    remove: () => rmSync(mirror, { recursive: true, force: true }),
  };
}
