import type { Worker } from 'node:worker_threads';
import { startThread } from '../../threads.ts';
import type { CleanAnswer, CleanRequest } from './program.logo-svg.worker.ts';

/**
 * SVG logos are cleaned in a thread of their own (program.logo-svg.worker.ts), started on the
 * first upload and kept: jsdom takes seconds to load and a large file a while to clean, which on
 * the server's own thread would stall every other request meanwhile.
 */

interface Waiting {
  resolve: (clean: string | undefined) => void;
  reject: (error: Error) => void;
}

let cleaner: Worker | undefined;
const waiting = new Map<number, Waiting>();
let lastId = 0;

function failAll(error: Error) {
  cleaner = undefined;
  for (const entry of waiting.values()) entry.reject(error);
  waiting.clear();
}

function startCleaner(): Worker {
  const worker = startThread(
    new URL('./program.logo-svg.worker', import.meta.url),
    import.meta.url.endsWith('.ts'),
  );
  worker.on('message', ({ id, clean }: CleanAnswer) => {
    waiting.get(id)?.resolve(clean);
    waiting.delete(id);
    if (waiting.size === 0) worker.unref();
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the SVG cleaner stopped (exit code ${code})`)));
  // Only a cleaner with work keeps the process alive (set after the listeners, which take it).
  worker.unref();
  return worker;
}

/** The SVG text without anything that runs or loads; undefined when no `<svg>` root is left. */
export function sanitizeSvg(svg: string): Promise<string | undefined> {
  cleaner ??= startCleaner();
  const worker = cleaner;
  lastId += 1;
  const request: CleanRequest = { id: lastId, svg };
  return new Promise((resolve, reject) => {
    waiting.set(request.id, { resolve, reject });
    worker.ref();
    worker.postMessage(request);
  });
}
