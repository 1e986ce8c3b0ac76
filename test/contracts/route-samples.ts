import { readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { TestProgram, TestServer } from '../harness.ts';

/**
 * What the contract suite needs to know of a route beyond its declaration. Each module exports
 * `contractSamples` from `src/modules/<module>/<module>[.<part>].contract.ts`; the suite loads them all.
 */
export interface RouteSample {
  /** A body the route accepts, so that an unknown id answers 404 rather than 422. */
  body?: unknown;
  /**
   * Creates the resource in `program` and returns the path parameters that name it: the suite
   * then asks for it with another program's key and expects 404.
   */
  create?: (server: TestServer, program: TestProgram) => Promise<Record<string, string>>;
}

/** Keyed by `METHOD /path/:param` exactly as the route is declared (colon paths with one colon). */
export type RouteSamples = Record<string, RouteSample>;

/** Every module's `contractSamples`, read from `src/modules/<module>/*.contract.ts`. */
export async function loadSamples(): Promise<RouteSamples> {
  const samples: RouteSamples = {};
  const modules = join(import.meta.dirname, '../../src/modules');
  for (const dir of readdirSync(modules, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const file of readdirSync(join(modules, dir.name))) {
      if (!file.endsWith('.contract.ts')) continue;
      // Under `npm test` this file runs compiled, beside each source's compiled .js.
      const compiled = file.replace(/\.ts$/, extname(import.meta.url));
      const module = (await import(join(modules, dir.name, compiled))) as { contractSamples?: RouteSamples };
      Object.assign(samples, module.contractSamples);
    }
  }
  return samples;
}
