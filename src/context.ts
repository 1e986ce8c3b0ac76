import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { ProgramType } from './core/program-types.ts';
import type { Clock } from './core/time.ts';
import type { Database } from './db/database.ts';

/** What every service and process entry shares: built once in main.ts, cli.ts or a test. */
export interface Deps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
}

/** The program an API key belongs to, resolved by authentication. */
export interface AuthenticatedProgram {
  id: number;
  publicId: string;
  type: ProgramType;
  keyId: number;
  /** The key's public id: names its rate-limit budget, unique across deployments. */
  keyPublicId: string;
  scope: 'full' | 'read';
}

/** What a `/v1` service function receives: the deps plus the caller's program. */
export interface ProgramContext extends Deps {
  program: AuthenticatedProgram;
}
