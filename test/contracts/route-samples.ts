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
