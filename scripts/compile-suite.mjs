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
// names the source line.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiledTrees = ['src', 'test'];
// Never linked: the repository's history, and what only this checkout's tools read.
const skipped = new Set(['.git', ...compiledTrees]);

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
  };
}

function mirrorTree(source, target, options, counts) {
  mkdirSync(target, { recursive: true });
  const outputs = new Set();
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
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
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(from, 'utf8'), {
      compilerOptions: options,
      fileName: from,
      reportDiagnostics: true,
    });
    if (diagnostics && diagnostics.length > 0) {
      const message = ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n');
      throw new Error(`${from}: ${message}`);
    }
    writeFileSync(join(target, output), outputText);
    counts.files += 1;
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
  const options = compilerOptions();
  const counts = { files: 0 };
  for (const tree of compiledTrees) mirrorTree(join(root, tree), join(mirror, tree), options, counts);
  return {
    mirror,
    files: counts.files,
    ms: Date.now() - started,
    remove: () => rmSync(mirror, { recursive: true, force: true }),
  };
}
