import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a thread on the module `entry` names without its extension, next to the caller
 * (`new URL('./x.worker', import.meta.url)`): from the sources through tsx (registered in the
 * thread, as Node 20 does not apply the parent's `--import tsx` to a worker's entry) when the
 * caller runs from them, or from the compiled build.
 */
export function startThread(entry: URL, fromSources: boolean, options: WorkerOptions = {}): Worker {
  const module = `${entry.href}.${fromSources ? 'ts' : 'js'}`;
  const load = fromSources
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(module)}); })`
    : `import(${JSON.stringify(module)})`;
  return new Worker(load, { ...options, eval: true, execArgv: [] });
}

/** The `--max-semi-space-size` the process was started with (ADR 0016), if any. */
const processSemiSpaceMb = (() => {
  // biome-ignore lint/style/noProcessEnv: NODE_OPTIONS is Node's own setting, not Vouch's.
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const values = flags.map((flag) => /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(flag)?.[1]);
  const last = values.filter((value) => value !== undefined).at(-1);
  return last === undefined ? undefined : Number(last);
})();

/**
 * Starts `count` threads (as `startThread`) whose young generation's semi-spaces stay at
 * `semiSpaceMb` (ADR 0145). A thread's `resourceLimits` would say so, but the server's
 * `--max-semi-space-size=64` (ADR 0016) is a V8 flag, which every thread's heap takes instead:
 * a reader of millions of rows then grows its young generation to 64 MB semi-spaces, as the
 * server's does, for nothing. V8 reads the flag only when a thread's heap is set up, so it is set
 * to the threads' size while they start and back once each is running (or gone).
 */
export function startSmallThreads(
  count: number,
  entry: URL,
  fromSources: boolean,
  semiSpaceMb: number,
  options: WorkerOptions = {},
): Worker[] {
  const limits = { ...options.resourceLimits, maxYoungGenerationSizeMb: 3 * semiSpaceMb };
  if (processSemiSpaceMb === undefined)
    return Array.from({ length: count }, () =>
      startThread(entry, fromSources, { ...options, resourceLimits: limits }),
    );
  setFlagsFromString(`--max-semi-space-size=${semiSpaceMb}`);
  let starting = count;
  const threads = Array.from({ length: count }, () =>
    startThread(entry, fromSources, { ...options, resourceLimits: limits }),
  );
  for (const thread of threads) {
    let started = false;
    const running = () => {
      if (started) return;
      started = true;
      starting--;
      if (starting === 0) setFlagsFromString(`--max-semi-space-size=${processSemiSpaceMb}`);
    };
    thread.once('online', running);
    thread.once('exit', running);
  }
  return threads;
}
