// bench/RESULTS.md: one current table of the figures `npm run bench` measured. Each bench process
// appends what it reports to a JSON-lines file that bench/run.ts names in BENCH_RESULTS_FILE; at the
// end of the run, run.ts merges those rows into RESULTS.md. A full run (every bench, every
// database) replaces the table; a restricted one replaces only the rows it measured, and each row
// names the run it comes from. The rows are kept as JSON in a comment at the end of the file, so
// the table is always regenerated from data, never parsed.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename } from 'node:path';

export interface ResultRow {
  /** The bench file without `.bench.ts`, or `foundation` (bench/run.ts itself). */
  bench: string;
  section: string;
  name: string;
  /** A load: requests a second, p99 latency, ratio to the bare server of the same run. */
  rps?: number;
  p99?: number;
  ratio?: number;
  /** Failed or non-2xx answers during a load: a figure with any is suspect. */
  failures?: number;
  /** Anything else, as text with its unit (`59.5 s`, `32.1 MB/s`). */
  figure?: string;
  target?: string;
  run?: number;
}

export interface RunInfo {
  id: number;
  date: string;
  node: string;
  cores: number;
  cpu: string;
  /** The bare server's req/s over the run (every bench measures its own). */
  bare?: [number, number];
  covered: string;
}

interface Stored {
  runs: RunInfo[];
  rows: ResultRow[];
}

const benchName = () => {
  const file = basename(process.argv[1] ?? '');
  return file === 'run.ts' ? 'foundation' : file.replace(/\.bench\.ts$/, '');
};

function append(row: Omit<ResultRow, 'bench'>): void {
  const file = process.env.BENCH_RESULTS_FILE;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ bench: benchName(), ...row })}\n`);
}

/** A load's figures (what `report` prints), in the results of this run. */
export function recordLoad(
  section: string,
  name: string,
  load: { rps: number; p99: number; errors: number; non2xx: number },
  bareRps: number | undefined,
  target = '',
): void {
  append({
    section,
    name,
    rps: Math.round(load.rps),
    p99: load.p99,
    ...(bareRps ? { ratio: load.rps / bareRps } : {}),
    failures: load.errors + load.non2xx,
    ...(target ? { target } : {}),
  });
}

/** A figure that is not a load (a seed's duration, an export's rate), in the results of this run. */
export function recordFigure(section: string, name: string, figure: string, target = ''): void {
  append({ section, name, figure, ...(target ? { target } : {}) });
}

const MARK = '<!-- bench-data ';

function readStored(path: string): Stored {
  if (!existsSync(path)) return { runs: [], rows: [] };
  const text = readFileSync(path, 'utf8');
  const at = text.lastIndexOf(MARK);
  if (at < 0) return { runs: [], rows: [] };
  return JSON.parse(text.slice(at + MARK.length, text.indexOf(' -->', at))) as Stored;
}

const keyOf = (row: ResultRow) => `${row.bench}\u0000${row.name}`;

/**
 * The stored rows with this run's merged in: a full run replaces them all; otherwise a measured row
 * takes its old place and a new one goes after the last row of its bench.
 */
export function mergeRows(old: ResultRow[], measured: ResultRow[], full: boolean): ResultRow[] {
  if (full) return measured;
  const fresh = new Map(measured.map((row) => [keyOf(row), row]));
  const merged = old.map((row) => {
    const replacement = fresh.get(keyOf(row));
    if (replacement) fresh.delete(keyOf(row));
    return replacement ?? row;
  });
  for (const row of fresh.values()) {
    const last = merged.findLastIndex((r) => r.bench === row.bench);
    if (last < 0) merged.push(row);
    else merged.splice(last + 1, 0, row);
  }
  return merged;
}

const number = (n: number) => Math.round(n).toLocaleString('en-US');
const cell = (text: string) => text.replaceAll('|', '\\|');

function render(stored: Stored): string {
  const lines = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts); do not edit by hand. Each load runs 50 connections',
    'unless its case says otherwise, from autocannon in a separate process on the same machine, after',
    'a warm-up. **× bare** is the ratio to a bare `node:http` server answering a small JSON body,',
    'measured in the same run, so figures from different machines compare. Benchmarks assert',
    'nothing; the tests do. Why the code is shaped as it is: [the decision records](../docs/adr/README.md).',
    '',
    '- `npm run bench`: every bench (the foundation, then each `bench/*.bench.ts`); it rewrites the table.',
    '- `npm run bench -- <name>`: the foundation and the benches whose file name contains `<name>`;',
    '  `BENCH_DATABASES=sqlite` or `=postgres` restricts `databases.bench.ts`. Such a run rewrites',
    '  only the rows it measures; the **Run** column says which run each row comes from.',
    '- `BENCH_DURATION` (seconds, default 10) shortens each load; PostgreSQL comes from',
    '  `TEST_DATABASE_URL`. The seeds run through `bin/vouch.js`, which uses `dist/` when it',
    '  exists: `npm run build` first.',
    '',
    '| Bench | Case | req/s or figure | × bare | p99 ms | Target | Run |',
    '|---|---|---:|---:|---:|---|---:|',
  ];
  for (const row of stored.rows) {
    const value =
      row.rps !== undefined
        ? `${number(row.rps)}${row.failures ? ` (${number(row.failures)} not 2xx)` : ''}`
        : (row.figure ?? '');
    lines.push(
      `| ${row.bench} | ${cell(row.name)} | ${cell(value)} | ${row.ratio !== undefined ? row.ratio.toFixed(3) : ''} | ${row.p99 ?? ''} | ${cell(row.target ?? '')} | ${row.run ?? ''} |`,
    );
  }
  lines.push('', '## Runs', '');
  for (const run of stored.runs) {
    const bare = run.bare ? `; bare server ${number(run.bare[0])}–${number(run.bare[1])} req/s` : '';
    lines.push(
      `- **${run.id}**: ${run.date}, ${run.cores} cores (${run.cpu}), Node ${run.node}${bare}; ${run.covered}.`,
    );
  }
  lines.push('', `${MARK}${JSON.stringify(stored)} -->`, '');
  return lines.join('\n');
}

/** Merges the rows a run wrote to `measuredFile` into `resultsPath` and rewrites it. */
export function writeResults(
  resultsPath: string,
  measuredFile: string,
  options: { full: boolean; covered: string },
): void {
  const stored = readStored(resultsPath);
  const lines = existsSync(measuredFile) ? readFileSync(measuredFile, 'utf8').split('\n') : [];
  const all = lines.filter(Boolean).map((line) => JSON.parse(line) as ResultRow);
  const bareRuns = all.filter((row) => row.name.startsWith('bare node:http'));
  const id = options.full ? 1 : Math.max(0, ...stored.runs.map((run) => run.id)) + 1;
  const measured = all.filter((row) => !bareRuns.includes(row)).map((row) => ({ ...row, run: id }));
  if (measured.length === 0) return;
  const rates = bareRuns.map((row) => row.rps ?? 0);
  const cpu = cpus();
  const run: RunInfo = {
    id,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ').concat(' UTC'),
    node: process.version,
    cores: cpu.length,
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    ...(rates.length ? { bare: [Math.min(...rates), Math.max(...rates)] as [number, number] } : {}),
    covered: options.covered,
  };
  const rows = mergeRows(stored.rows, measured, options.full);
  const used = new Set(rows.map((row) => row.run));
  const runs = options.full ? [run] : [...stored.runs, run].filter((r) => used.has(r.id));
  writeFileSync(resultsPath, render({ runs, rows }));
}
